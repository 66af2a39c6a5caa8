/**
 * Where the archive goes: `<out>/<folder>/<YYYY-MM-DD>.md`, the folder being a slug of the label's
 * name (or of the search expression), so one label's days sit together and sort by date.
 */
import { join } from "node:path";

export type Selector = { kind: "label"; label: string } | { kind: "query"; query: string };

const MAX_SLUG = 80;

/**
 * Lower case, accents dropped, every run of other characters one dash. Letters of any script stay
 * (a label in Japanese keeps its name); nothing that means something to a file system survives.
 */
export function slugOf(text: string): string {
  const slug = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "");
  return Array.from(slug).slice(0, MAX_SLUG).join("").replace(/-+$/, "") || "mail";
}

export function dayFilePath(outDir: string, folder: string, day: string): string {
  return join(outDir, folder, `${day}.md`);
}
