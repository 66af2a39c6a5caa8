/** The README's walkthrough: its shell blocks, joined in order, and the strings a test swaps in them. */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellBlocksOf } from "./markdown.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";
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

/**
 * A server for the walkthrough: its secrets file (which the walkthrough appends to) in `dir`,
 * empty and private, named by `MEMORY_RUNTIME_SECRETS_FILE`.
 */
export async function startWalkthroughServer(opts: {
  dir: string;
  secret: string;
  label: string;
}): Promise<{ server: ServerProcess; secretsFile: string }> {
  const secretsFile = join(opts.dir, "tenants.env");
  writeFileSync(secretsFile, "# the walkthrough appends here\n", { mode: 0o600 });
  chmodSync(secretsFile, 0o600);
  const server = await startServerProcess({
    dataDir: join(opts.dir, "data"),
    secret: opts.secret,
    logDir: opts.dir,
    label: opts.label,
    env: { MEMORY_RUNTIME_SECRETS_FILE: secretsFile },
  });
  return { server, secretsFile };
}
