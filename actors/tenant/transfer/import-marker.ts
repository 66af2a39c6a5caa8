import { closeSync, existsSync, fsyncSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isVectorIndexFile } from "../../../src/search/vector/index-tuning.ts";
import { clearImportedIn } from "../../../src/vault/import-records.ts";

/** Marker file of an import in progress: an environment holding one on open drops the import. */
const IMPORT_MARKER = "import-pending";

/** Marks the vault in `dir` as holding an import in progress (durably, before any of it is written). */
export function markImport(dir: string, startedAt: number): void {
  writeMarker(join(dir, IMPORT_MARKER), String(startedAt));
}

/** The import completed or was dropped. */
export function unmarkImport(dir: string): void {
  rmSync(join(dir, IMPORT_MARKER), { force: true });
}

/**
 * An import the process did not live to finish (or to abort) is dropped before the vault opens:
 * an import is all or nothing. Called with the vault closed; answers whether it dropped one.
 */
export function discardUnfinishedImport(dir: string): boolean {
  const marker = join(dir, IMPORT_MARKER);
  if (!existsSync(marker)) return false;
  clearImportedIn(dir);
  // The vector index files may hold vectors of the import: rebuilt from the vault on open.
  for (const file of readdirSync(dir)) if (isVectorIndexFile(file)) rmSync(join(dir, file), { force: true });
  rmSync(marker, { force: true });
  return true;
}

/** Writes a marker file and makes it durable, with its directory entry. */
function writeMarker(path: string, content: string): void {
  const fd = openSync(path, "w");
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dir = openSync(join(path, ".."), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
