/** The README's walkthrough: its shell blocks, joined in order, and the strings a test swaps in them. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { shellBlocksOf } from "./markdown.ts";
import { ROOT } from "./spawn.ts";

export const WALKTHROUGH_ADDRESS = "http://127.0.0.1:8080";
export const WALKTHROUGH_SECRETS_PATH = ".secrets/tenants.env";

export function readme(): string {
  return readFileSync(join(ROOT, "README.md"), "utf8");
}

export function walkthroughScript(): string {
  const section = /^## Walkthrough\n([\s\S]*?)(?=^## )/m.exec(readme())?.[1] ?? "";
  return shellBlocksOf(section).join("\n");
}
