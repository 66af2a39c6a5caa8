import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export interface Started {
  url: string;
  proc: Subprocess;
  dataDir?: string;
}

/** Every child still running and every temporary directory, so that `cleanUp` leaves nothing behind. */
const children = new Set<Subprocess>();
const tempDirs = new Set<string>();

/** A fresh directory under the system's temporary directory, removed by `cleanUp` (or `removeTempDir`). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/**
 * Kills what is left (SIGKILL: nothing of theirs is worth saving any more) and removes the
 * temporary directories. Synchronous, so it also runs from an `exit` or signal handler.
 */
export function cleanUp(): void {
  for (const child of children) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function waitFor(url: string, proc: Subprocess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${url}: the process exited with ${proc.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(20);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Spawns `bun run <script>` on a free loopback port without waiting for it to listen. */
export async function spawnProcess(script: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const proc = Bun.spawn(["bun", "run", script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: "ignore",
    stderr: "inherit",
  });
  children.add(proc);
  void proc.exited.then(() => children.delete(proc));
  return { url: `http://127.0.0.1:${port}`, proc };
}

/** Starts `bun run <script>` on a free loopback port and waits until `probePath` answers. */
export async function startProcess(
  script: string,
  probePath: string,
  env: Record<string, string> = {},
): Promise<Started> {
  const started = await spawnProcess(script, env);
  try {
    await waitFor(started.url + probePath, started.proc);
  } catch (error) {
    await stop(started);
    throw error;
  }
  return started;
}

/**
 * Rate limits far above any load the bench makes: the check runs (its cost is measured), it never
 * refuses (the bench measures capacity, not the per-tenant limits).
 */
const UNREACHED_RATE_LIMITS = ["read", "write", "search", "mcp", "admin", "webhook"]
  .map((rateClass) => `${rateClass}=1000000:1000000`)
  .join(",");

/** The environment of the service (`bun run src/index.ts`) on `dataDir`. */
export function serviceEnv(secret: string, dataDir: string, env: Record<string, string> = {}) {
  return {
    MEMORY_RUNTIME_RATE_LIMITS: UNREACHED_RATE_LIMITS,
    // The bench's figures are the hash embedder's (the targets are set for hash or client
    // vectors), unless the caller's environment names another.
    MEMORY_RUNTIME_EMBEDDER: process.env.MEMORY_RUNTIME_EMBEDDER || "hash",
    ...env,
    MEMORY_RUNTIME_JWT_SECRET: secret,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
  };
}

/**
 * The service on a fresh data directory (removed by `cleanUp`), or on `dataDir` again (a
 * restart, possibly with other variables).
 */
export async function startService(
  secret: string,
  opts: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<Started> {
  const dataDir = opts.dataDir ?? tempDir("mrt-bench-");
  const started = await startProcess("src/index.ts", "/healthz", serviceEnv(secret, dataDir, opts.env));
  return { ...started, dataDir };
}

/** SIGTERM (the service drains its actors and saves its indexes), then waits, bounded, for the exit. */
export async function stop(started: Started, timeoutMs = 60_000): Promise<void> {
  if (started.proc.exitCode !== null || started.proc.signalCode !== null) return;
  started.proc.kill("SIGTERM");
  let timer: Timer | undefined;
  const exited = await Promise.race([
    started.proc.exited.then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (!exited) {
    console.error(`${started.url}: no exit ${timeoutMs} ms after SIGTERM, killed`);
    started.proc.kill("SIGKILL");
    await started.proc.exited;
  }
}

/** SIGKILL and wait: for a process whose data is thrown away (nothing to save, no index to write). */
export async function kill(started: Started): Promise<void> {
  if (started.proc.exitCode !== null || started.proc.signalCode !== null) return;
  started.proc.kill("SIGKILL");
  await started.proc.exited;
}
