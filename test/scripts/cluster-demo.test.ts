/**
 * `bun run cluster:demo` (scripts/cluster-demo.ts) as an operator runs it, on ports and a data
 * directory of the test's choosing: the cluster it starts answers on those ports, its terminal
 * stays quiet (the nodes' logs go to files unless --verbose), and SIGTERM or SIGHUP of the demo
 * stops every process it started (nats-server and the three nodes: their pids are gone).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { descendants } from "../../scripts/children.ts";
import { freePort } from "../helpers/free-port.ts";
import { pollUntil } from "../helpers/poll.ts";
import { cleanEnv, ROOT } from "../helpers/spawn.ts";

const dirs: string[] = [];
const started: Subprocess[] = [];
afterAll(() => {
  for (const p of started) p.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Demo {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  dir: string;
  ports: number[];
  natsPort: number;
  /** Everything the demo printed so far (stdout and stderr). */
  printed: () => string;
  /** Resolves once the demo has printed `text`. */
  until: (text: string) => Promise<void>;
}

/** Three consecutive free ports (each probed). */
function freeRun(): number[] {
  for (;;) {
    const first = freePort();
    if (first > 65533) continue;
    const ports = [first, first + 1, first + 2];
    try {
      for (const port of ports.slice(1))
        Bun.serve({ port, hostname: "127.0.0.1", fetch: () => new Response() }).stop(true);
      return ports;
    } catch {
      // one of the next two is taken: another run
    }
  }
}

function startDemo(extra: string[] = []): Demo {
  const dir = mkdtempSync(join(tmpdir(), "mrt-cluster-demo-"));
  dirs.push(dir);
  const ports = freeRun();
  const natsPort = freePort();
  const proc = Bun.spawn(
    [
      "bun",
      "run",
      join(ROOT, "scripts/cluster-demo.ts"),
      "--port",
      String(ports[0]),
      "--nats-port",
      String(natsPort),
      "--data-dir",
      join(dir, "data"),
      ...extra,
    ],
    {
      cwd: ROOT,
      env: cleanEnv({ MEMORY_RUNTIME_JWT_SECRET: "cluster-demo-test-secret-of-at-least-32-bytes" }),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  started.push(proc);
  let text = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      for (const w of waiters.filter((w) => text.includes(w.text))) w.resolve();
    }
  };
  const reading = Promise.all([read(proc.stdout), read(proc.stderr)]);
  const until = (wanted: string) =>
    new Promise<void>((resolve, reject) => {
      if (text.includes(wanted)) return resolve();
      waiters.push({ text: wanted, resolve });
      void reading.then(() => reject(new Error(`the demo ended without printing ${wanted}:\n${text}`)));
    });
  return { proc, dir, ports, natsPort, printed: () => text, until };
}

/** The command line of each process the demo started. */
function children(demo: Demo): Map<number, string> {
  const out = new Map<number, string>();
  for (const pid of descendants(demo.proc.pid)) {
    try {
      out.set(pid, readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    } catch {
      // gone
    }
  }
  return out;
}

/** Gone, or a zombie no one has reaped yet (it runs nothing, holds no port). */
function dead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Sends `signal` to the demo, waits for it to exit, and answers the pids it had started that still run. */
async function stopWith(demo: Demo, signal: NodeJS.Signals, pids: number[]): Promise<number[]> {
  demo.proc.kill(signal);
  await demo.proc.exited;
  return pollUntil(
    () => pids.filter((pid) => !dead(pid)),
    (alive) => alive.length === 0,
    { timeoutMs: 5000 },
  );
}

describe("bun run cluster:demo", () => {
  test("on the ports given, quiet by default, and SIGTERM stops nats-server and every node", async () => {
    const demo = startDemo();
    await demo.until("Ctrl-C stops them all");
    for (const port of demo.ports) {
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect({ port, status: health.status }).toEqual({ port, status: 200 });
    }
    const kids = children(demo);
    const commands = [...kids.values()];
    expect(
      commands.filter((c) => c.includes("nats-server") && c.includes(`-p ${demo.natsPort}`)),
    ).toHaveLength(1);
    expect(commands.filter((c) => c.includes("src/index.ts"))).toHaveLength(3);
    // The terminal: the demo's own lines; the nodes' (partition moves among them) in files.
    expect(demo.printed()).not.toMatch(/partition \d+ dropped/);
    expect(demo.printed()).toContain(`http://127.0.0.1:${demo.ports[0]}`);
    const data = join(demo.dir, "data");
    expect(
      readdirSync(data)
        .filter((f) => f.endsWith(".log"))
        .sort(),
    ).toEqual(["n1.log", "n2.log", "n3.log", "nats.log"]);
    expect(readFileSync(join(data, "n1.log"), "utf8")).toContain("listening on");
    expect(await stopWith(demo, "SIGTERM", [...kids.keys()])).toEqual([]);
    expect(demo.proc.exitCode).toBe(128 + 15);
  }, 90_000);

  test("--verbose puts the nodes' logs on the terminal; SIGHUP while it starts stops them all", async () => {
    const demo = startDemo(["--verbose"]);
    // All three nodes up (their own lines on the demo's terminal), the cluster not yet settled.
    await pollUntil(
      () => demo.printed().match(/listening on/g)?.length ?? 0,
      (n) => n === 3,
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const kids = children(demo);
    expect([...kids.values()].filter((c) => c.includes("src/index.ts"))).toHaveLength(3);
    expect(existsSync(join(demo.dir, "data", "n1.log"))).toBe(false);
    expect(await stopWith(demo, "SIGHUP", [...kids.keys()])).toEqual([]);
    expect(demo.proc.exitCode).toBe(128 + 1);
  }, 90_000);

  test("killed with SIGKILL (no handler runs), its nodes and nats-server still stop", async () => {
    const demo = startDemo(["--verbose"]);
    await pollUntil(
      () => demo.printed().match(/listening on/g)?.length ?? 0,
      (n) => n === 3,
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    const kids = [...children(demo).keys()];
    expect(kids).toHaveLength(4);
    demo.proc.kill("SIGKILL");
    await demo.proc.exited;
    // The kernel's SIGTERM (setpriv --pdeathsig): each stops as on Ctrl-C, within its own bounds.
    expect(
      await pollUntil(
        () => kids.filter((pid) => !dead(pid)),
        (alive) => alive.length === 0,
        { timeoutMs: 30_000 },
      ),
    ).toEqual([]);
  }, 90_000);
});
