import { readdirSync, readlinkSync } from "node:fs";

/**
 * The files a process holds a descriptor of (Linux /proc: `pid`, or this process by default),
 * sorted; a descriptor closed while they are read is left out.
 */
export function filesOpenBy(pid: number | "self" = "self"): string[] {
  const files: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      files.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {}
  }
  return files.sort();
}

/** The files under the directory `dir` this process holds a descriptor of, sorted. */
export function filesOpenUnder(dir: string): string[] {
  return filesOpenBy().filter((file) => file.startsWith(`${dir}/`));
}
