import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export interface Started {
  url: string;
  proc: Subprocess;
  dataDir?: string;
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function waitFor(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Starts `bun run <script>` on a free loopback port and waits until `probePath` answers. */
export async function startProcess(
  script: string,
  probePath: string,
  env: Record<string, string> = {},
): Promise<Started> {
  const port = await freePort();
  const proc = Bun.spawn(["bun", "run", script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url + probePath);
  return { url, proc };
}

export async function startService(secret: string): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-bench-"));
  const started = await startProcess("src/index.ts", "/healthz", {
    MEMORY_RUNTIME_JWT_SECRET: secret,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
  });
  return { ...started, dataDir };
}

export async function stop(started: Started): Promise<void> {
  started.proc.kill("SIGTERM");
  await started.proc.exited;
}
