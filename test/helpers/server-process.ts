import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { TokenService } from "../../src/auth/tokens.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { systemClock } from "../../src/runtime/clock.ts";
import { cleanEnv, ROOT } from "./spawn.ts";

/** A real server process (`bun run src/index.ts`) on a free loopback port. */
export interface ServerProcess {
  proc: Subprocess;
  base: string;
  /** What the process printed on stdout up to its listening line (other ports it announces). */
  banner: string;
  /** The last part of what the server wrote to stderr (its log file). */
  log(): string;
  /** Everything the server wrote to stdout so far (its start, reload and signal lines). */
  output(): string;
  /**
   * Resolves once stdout holds a match of `pattern` (at once if it already does): the server's own
   * line is the event. Rejects if stdout ends first.
   */
  printed(pattern: RegExp): Promise<string>;
}

export interface ServerOptions {
  dataDir: string;
  secret: string;
  /** Where stdout/stderr go: `<logDir>/<label>.log`. */
  logDir: string;
  label: string;
  /** The program to run, relative to the repository root; default `src/index.ts`. */
  entry?: string;
  env?: Record<string, string | undefined>;
  /** Starts the server under `ulimit -n <openFiles>` (through bash). */
  openFiles?: number;
  readyTimeoutMs?: number;
}

/**
 * Starts the server on port 0 and waits for the line where it says which port it listens on
 * (no polling: the server's own output is the event).
 */
export async function startServerProcess(opts: ServerOptions): Promise<ServerProcess> {
  const logPath = join(opts.logDir, `${opts.label}.log`);
  const serve = [process.execPath, "run", opts.entry ?? "src/index.ts"];
  const cmd =
    opts.openFiles === undefined
      ? serve
      : ["bash", "-c", `ulimit -n ${opts.openFiles} && exec "$0" "$@"`, ...serve];
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: cleanEnv({
      MEMORY_RUNTIME_JWT_SECRET: opts.secret,
      MEMORY_RUNTIME_DATA_DIR: opts.dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      // The suite's embedder (the default, `tiered`, loads a sentence model): `opts.env` may say otherwise.
      MEMORY_RUNTIME_EMBEDDER: "hash",
      // No access log unless a test asks (`opts.env`): stdout is read for the server's own lines.
      MEMORY_RUNTIME_LOG: "off",
      ...opts.env,
    }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: Bun.file(logPath),
  });
  const log = () => tail(logPath);
  const timeout = setTimeout(() => proc.kill(9), opts.readyTimeoutMs ?? 20_000);
  try {
    const stdout: Seen = { text: "", waiters: new Set() };
    const listening = await listeningPort(proc.stdout, stdout);
    if (listening === undefined)
      throw new Error(`server exited (${await proc.exited}) before listening: ${log()}`);
    const output = () => stdout.text;
    const printed = (pattern: RegExp) => waitFor(stdout, pattern);
    return {
      proc,
      base: `http://127.0.0.1:${listening.port}`,
      banner: listening.banner,
      log,
      output,
      printed,
    };
  } finally {
    clearTimeout(timeout);
  }
}

/** What the server printed so far, and who waits for a line of it. */
interface Seen {
  text: string;
  /** Called after each chunk, and with `ended` once stdout closes. */
  waiters: Set<(ended: boolean) => void>;
  ended?: boolean;
}

function waitFor(seen: Seen, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (ended: boolean) => {
      const match = pattern.exec(seen.text);
      if (match) {
        seen.waiters.delete(check);
        resolve(match[0]);
      } else if (ended) {
        seen.waiters.delete(check);
        reject(new Error(`stdout ended without ${pattern}: ${seen.text.slice(-500)}`));
      }
    };
    seen.waiters.add(check);
    check(seen.ended === true);
  });
}

/**
 * Reads stdout until "listening on http://host:port", then keeps draining it in the background;
 * everything read is appended to `seen.text`.
 */
async function listeningPort(
  stdout: ReadableStream<Uint8Array>,
  seen: Seen,
): Promise<{ port: number; banner: string } | undefined> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return undefined;
    seen.text += decoder.decode(value, { stream: true });
    const match = /listening on http:\/\/[^:\s]+:(\d+)/.exec(seen.text);
    if (match) {
      void drain(reader, decoder, seen);
      return { port: Number(match[1]), banner: seen.text };
    }
  }
}

async function drain(
  reader: { read(): Promise<{ done: boolean; value?: Uint8Array }> },
  decoder: TextDecoder,
  seen: Seen,
): Promise<void> {
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.text += decoder.decode(value, { stream: true });
      for (const waiter of [...seen.waiters]) waiter(false);
    }
  } catch {}
  seen.ended = true;
  for (const waiter of [...seen.waiters]) waiter(true);
}

function tail(path: string): string {
  try {
    return readFileSync(path, "utf8").slice(-3000);
  } catch {
    return "(no log)";
  }
}

/** An operator token signed with `secret`, as the minting script would. */
export async function adminTokenFor(secret: string, ttlSeconds = 3600): Promise<string> {
  const tokens = new TokenService(new TextEncoder().encode(secret), systemClock);
  const minted = await tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds,
  });
  return minted.token;
}

export interface HttpAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
  body: any;
  headers: Headers;
}

/** One JSON call to a real server; `token` as a bearer, `body` as JSON. */
export async function httpCall(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(base + path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body, headers: res.headers };
}

/** A new tenant of the server at `base` (its id and token), created with the operator's token. */
export async function createTenantOn(
  base: string,
  admin: string,
  name: string,
): Promise<{ tenant_id: string; token: string }> {
  const created = await httpCall(base, "POST", "/admin/tenants", { token: admin, body: { name } });
  if (created.status !== 201) throw new Error(`tenant creation answered ${created.status}`);
  return created.body;
}

/** Kills with SIGKILL (if still running) and waits for the exit. */
export async function killHard(server: ServerProcess): Promise<void> {
  if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill(9);
  await server.proc.exited;
}
