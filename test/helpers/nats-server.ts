/**
 * A real NATS server with JetStream (Debian's `nats-server`) on a loopback port of its own choosing,
 * for the cluster suites. `NATS_SERVER_PATH` overrides `/usr/sbin/nats-server`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export interface NatsServer {
  proc: Subprocess;
  url: string;
  /** Its JetStream store directory (`-sd`). */
  storeDir: string;
  /** Stops with SIGINT (a clean shutdown) and removes its store unless `keepStore`. */
  stop(): Promise<void>;
}

export function natsServerPath(): string {
  const configured = process.env.NATS_SERVER_PATH;
  if (configured) return configured;
  return existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : "nats-server";
}

/**
 * Starts `nats-server -js -sd DIR -a 127.0.0.1 -p -1` and waits for the log line naming the client
 * port it picked (its own output is the readiness event, no polling).
 */
export async function startNatsServer(
  opts: { storeDir?: string; readyTimeoutMs?: number } = {},
): Promise<NatsServer> {
  const storeDir = opts.storeDir ?? mkdtempSync(join(tmpdir(), "nats-js-"));
  const proc = Bun.spawn([natsServerPath(), "-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", "-1"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const timeout = setTimeout(() => proc.kill(9), opts.readyTimeoutMs ?? 10_000);
  try {
    const port = await clientPort(proc.stderr);
    if (port === undefined) throw new Error(`nats-server exited (${await proc.exited}) before listening`);
    return {
      proc,
      url: `nats://127.0.0.1:${port}`,
      storeDir,
      stop: async () => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGINT");
        await proc.exited;
        if (!opts.storeDir) rmSync(storeDir, { recursive: true, force: true });
      },
    };
  } finally {
    clearTimeout(timeout);
  }
}

/** Reads the log until "Listening for client connections on 127.0.0.1:PORT", then drains it. */
async function clientPort(stderr: ReadableStream<Uint8Array>): Promise<number | undefined> {
  const reader = stderr.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return undefined;
    seen += decoder.decode(value, { stream: true });
    const match = /Listening for client connections on [^:\s]+:(\d+)/.exec(seen);
    if (match) {
      void drain(reader);
      return Number(match[1]);
    }
  }
}

async function drain(reader: { read(): Promise<{ done: boolean }> }): Promise<void> {
  try {
    while (!(await reader.read()).done) {}
  } catch {}
}
