import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { isVectorIndexFile } from "../search/vector/index-tuning.ts";
import { openEnvironment } from "./tables.ts";

/**
 * LMDB reuses freed pages but never wipes them: after an erasure the erased bytes may sit in free
 * pages of data.mdb until overwritten. Erasure therefore ends with a compaction: a copy of the
 * environment holding only live pages replaces the file, and the vector index files (which hold
 * the erased entries' vectors) are dropped, to be rebuilt from the vault on open.
 *
 * A marker file asks for it. It is written before the erasure's transaction, so a crash at any
 * point still compacts on the next open; the compaction itself is a rename of a finished copy.
 */
const MARKER = "compact-pending";
const DATA_FILE = "data.mdb";
/** lmdb writes a copy of an environment opened on a directory into a directory of its own. */
const COPY_DIR = "compacting";

export function markForCompaction(dir: string): void {
  const fd = openSync(join(dir, MARKER), "w");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function compactionPending(dir: string): boolean {
  return existsSync(join(dir, MARKER));
}

/** Compacts the environment in `dir` when a compaction is pending; the vault must be closed. */
export async function compactIfPending(dir: string): Promise<boolean> {
  if (!compactionPending(dir)) return false;
  const copy = join(dir, COPY_DIR);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy);
  const root = openEnvironment(dir);
  try {
    await root.backup(copy, true);
  } finally {
    await root.close();
  }
  renameSync(join(copy, DATA_FILE), join(dir, DATA_FILE));
  rmSync(copy, { recursive: true, force: true });
  for (const file of readdirSync(dir)) if (isVectorIndexFile(file)) rmSync(join(dir, file), { force: true });
  rmSync(join(dir, MARKER), { force: true });
  return true;
}
