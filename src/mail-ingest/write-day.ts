/**
 * A day's file is replaced whole and atomically: written to a temporary file beside it, then
 * renamed over it, so a reader (or a crash) never sees half a day. A file already holding exactly
 * the new content is left alone, so a second run over the same days changes nothing on disk.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export type WriteOutcome = "written" | "unchanged";

async function current(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

export async function writeDayFile(path: string, content: string): Promise<WriteOutcome> {
  if ((await current(path)) === content) return "unchanged";
  await mkdir(dirname(path), { recursive: true });
  // Dot-prefixed and not ending in .md: never taken for a day's file.
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, content, "utf8");
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return "written";
}

/** Removes a day's file that no longer has any message; true when there was one. */
export async function removeDayFile(path: string): Promise<boolean> {
  if ((await current(path)) === undefined) return false;
  await rm(path, { force: true });
  return true;
}
