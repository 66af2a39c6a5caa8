/**
 * A documentation page's shell blocks run as written: joined in order, in one bash with
 * `set -euo pipefail`, against a real server of their own, the page's address swapped for the
 * server's. Whatever `append` says runs after them (a line printing a variable the test needs).
 */
import { join } from "node:path";
import { shellBlocksOf } from "./markdown.ts";
import { type ServerProcess, startServerProcess } from "./server-process.ts";
import { cleanEnv, run } from "./spawn.ts";

export const DOC_ADDRESS = "http://127.0.0.1:8080";

export interface DocShellRun {
  server: ServerProcess;
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runDocShell(opts: {
  page: string;
  dir: string;
  secret: string;
  label: string;
  append?: string;
}): Promise<DocShellRun> {
  const script = shellBlocksOf(opts.page).join("\n");
  if (!script.includes(DOC_ADDRESS)) throw new Error(`the page's blocks do not name ${DOC_ADDRESS}`);
  const server = await startServerProcess({
    dataDir: join(opts.dir, "data"),
    secret: opts.secret,
    logDir: opts.dir,
    label: opts.label,
  });
  const runnable = `${script.replaceAll(DOC_ADDRESS, server.base)}\n${opts.append ?? ""}`;
  const done = await run(
    ["bash", "-c", `set -euo pipefail\n${runnable}`],
    cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: opts.secret }),
    30_000,
  );
  return { server, code: done.code, stdout: done.stdout, stderr: done.stderr };
}
