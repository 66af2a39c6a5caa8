import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");

/**
 * The parent's environment without any MEMORY_RUNTIME_* or PORT/HOST, plus `extra`. The embedder
 * is the suite's, `hash`, unless `extra` names another: servers the tests spawn (server-process.ts)
 * do not load the sentence model of the default, `tiered`.
 */
export function cleanEnv(extra: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || k.startsWith("MEMORY_RUNTIME_") || k === "PORT" || k === "HOST") continue;
    env[k] = v;
  }
  env.MEMORY_RUNTIME_EMBEDDER = "hash";
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (with a deadline) and collects its output; in the repository unless `cwd`. */
export async function run(
  cmd: string[],
  env: Record<string, string>,
  timeoutMs = 15_000,
  cwd = ROOT,
): Promise<Finished> {
  const proc = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
