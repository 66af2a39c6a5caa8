/**
 * Noisy neighbour (issue 13, per-tenant rate limits): a real server with rate limits configured;
 * tenant B's p99 latency over a bounded, paced sequence of reads and searches, first while the
 * server is otherwise idle, then while tenant A floods it from another process (test/soak/flood.ts:
 * reads, searches and writes on many connections, ignoring Retry-After, so mostly answered 429).
 * The ratio of the two p99s is the figure (target: within 2×). The phases alternate in short
 * windows (the flood process is switched on and off, not restarted) and each p99 is taken over all
 * of its phase's samples, so load from outside (the machine is shared) lands on both phases alike.
 *
 * B stays under its own limits; a 429 or a 5xx for B, or a 5xx for A, makes the run throw rather
 * than report a figure that means nothing. For comparisons: NOISY_LIMITS (`off`: no limits),
 * NOISY_HOLD_MS (how long a refusal is held), NOISY_CONNECTIONS (the flood's), NOISY_SAMPLES.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { adminTokenFor, httpCall, killHard, startServerProcess } from "../helpers/server-process.ts";
import { ROOT } from "../helpers/spawn.ts";
import type { FloodFigures } from "./flood.ts";

export interface NoisyNeighbourFigures {
  idle_p99_ms: number;
  flood_p99_ms: number;
  ratio: number;
}

const SECRET = "noisy-neighbour-secret-that-is-at-least-32-bytes!";
/**
 * A tenant's share of this service on a small (2-core) machine. B's paced sequence (67 reads and
 * 33 searches a second) stays inside it.
 */
const LIMITS = process.env.NOISY_LIMITS ?? "read=100:25,search=50:12,write=25:6";
const HOLD_MS = process.env.NOISY_HOLD_MS;
/** B sends one request every PACE_MS (an agent's steady traffic, not a load test of its own). */
const PACE_MS = Number(process.env.NOISY_PACE_MS ?? 10);
/** B's requests per phase, over all windows. */
const SAMPLES = Number(process.env.NOISY_SAMPLES ?? 2000);
/** Windows per phase: idle and flooded alternate, SAMPLES / WINDOWS requests of B each. */
const WINDOWS = 20;
/** B's requests not counted after a flood window: held refusals and queued work drain meanwhile. */
const SETTLE = 60;
const SEED_FACTS = 500;
const FLOOD = {
  connections: Number(process.env.NOISY_CONNECTIONS ?? 32),
  maxRequests: 2_000_000,
  maxSeconds: 120,
};

interface Tenant {
  id: string;
  token: string;
  factIds: string[];
}

export async function noisyNeighbour(log: (line: string) => void): Promise<NoisyNeighbourFigures> {
  const dir = mkdtempSync(join(tmpdir(), "mrt-noisy-"));
  const server = await startServerProcess({
    dataDir: join(dir, "data"),
    secret: SECRET,
    logDir: dir,
    label: "noisy-neighbour",
    env: {
      MEMORY_RUNTIME_RATE_LIMITS: LIMITS,
      ...(HOLD_MS === undefined ? {} : { MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: HOLD_MS }),
    },
  });
  try {
    const admin = await adminTokenFor(SECRET);
    const a = await seededTenant(server.base, admin, "Flooding Co");
    const b = await seededTenant(server.base, admin, "Quiet Co");
    const idle = new Phase();
    const flooded = new Phase();
    const flooding = startFlood(server.base, a.token);
    for (let window = 0; window < WINDOWS; window++) {
      await measure(server.base, b, SETTLE, new Phase());
      await measure(server.base, b, SAMPLES / WINDOWS, idle);
      await flooding.switchTo("on");
      await measure(server.base, b, SAMPLES / WINDOWS, flooded);
      await flooding.switchTo("off");
    }
    const flood = await flooding.end();
    const figures = {
      idle_p99_ms: round2(idle.p99),
      flood_p99_ms: round2(flooded.p99),
      ratio: round2(flooded.p99 / idle.p99),
    };
    report(log, idle, flooded, flood);
    checkAnswers(idle.statuses, flooded.statuses, flood.statuses);
    return figures;
  } finally {
    await killHard(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(log: (line: string) => void, idle: Phase, flooded: Phase, flood: FloodFigures): void {
  const hold = HOLD_MS === undefined ? "" : `, refusals held ${HOLD_MS} ms`;
  log(`noisy neighbour: limits ${LIMITS}${hold}; ${WINDOWS} windows of idle, then flooded`);
  log(`  tenant B, paced (one request every ${PACE_MS} ms: read one, list 20, search), per phase:`);
  log(`    idle:         p50 ${round2(idle.p50)} ms, p99 ${round2(idle.p99)} ms; ${describe(idle.statuses)}`);
  log(
    `    under flood:  p50 ${round2(flooded.p50)} ms, p99 ${round2(flooded.p99)} ms; ${describe(flooded.statuses)}`,
  );
  log(
    `  tenant A's flood: ${flood.requests} requests in ${round2(flood.seconds)} s on ${FLOOD.connections} connections; ${describe(flood.statuses)}; ${flood.errors} errors`,
  );
  log(`  p99 ratio ${round2(flooded.p99 / idle.p99)}× (target ≤ 2×)`);
}

/** A tenant with SEED_FACTS facts, so its reads and searches have something to do. */
async function seededTenant(base: string, admin: string, name: string): Promise<Tenant> {
  const created = await httpCall(base, "POST", "/admin/tenants", { token: admin, body: { name } });
  if (created.status !== 201) throw new Error(`creating ${name}: ${created.status}`);
  const { tenant_id: id, token } = created.body as { tenant_id: string; token: string };
  const entries = Array.from({ length: SEED_FACTS }, (_, i) => ({
    content: `${name} fact ${i}: the quarterly review of account ${i % 37} moved to week ${i % 52}`,
    tags: [`account-${i % 37}`],
  }));
  const batch = await httpCall(base, "POST", "/memory/facts/batch", { token, body: { entries } });
  if (batch.status !== 201) throw new Error(`seeding ${name}: ${batch.status} ${JSON.stringify(batch.body)}`);
  const factIds = (batch.body as { entries: Array<{ id: string }> }).entries.map((e) => e.id);
  return { id, token, factIds };
}

/** B's latencies (ms) and answers in one phase, over all its rounds. */
class Phase {
  readonly samples: number[] = [];
  readonly statuses: Record<string, number> = {};

  add(ms: number, status: number): void {
    this.samples.push(ms);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
  }

  get p50(): number {
    return this.quantile(0.5);
  }

  get p99(): number {
    return this.quantile(0.99);
  }

  private quantile(q: number): number {
    const sorted = [...this.samples].sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  }
}

/**
 * `count` of B's requests into `phase`, one every PACE_MS (or right after the previous one, if
 * that was slower): a paced client, not a load generator. A measurement, not a test: the pacing
 * is real time.
 */
async function measure(base: string, b: Tenant, count: number, phase: Phase): Promise<void> {
  for (let i = 0; i < count; i++) {
    const sent = performance.now();
    const status = await request(base, b, i);
    phase.add(performance.now() - sent, status);
    // No catching up after a slow answer: B never bursts, so it never meets its own limits.
    const wait = sent + PACE_MS - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
}

/** Reads one entry, lists a page, searches: in turn. Answers are read whole before the clock stops. */
async function request(base: string, b: Tenant, i: number): Promise<number> {
  const headers = { authorization: `Bearer ${b.token}`, "content-type": "application/json" };
  const kind = i % 3;
  const res =
    kind === 0
      ? await fetch(`${base}/memory/facts/${b.factIds[i % b.factIds.length]}`, { headers })
      : kind === 1
        ? await fetch(`${base}/memory/facts?limit=20`, { headers })
        : await fetch(`${base}/memory/search`, {
            method: "POST",
            headers,
            body: JSON.stringify({ query: `quarterly review account ${i % 37}`, limit: 10 }),
          });
  await res.arrayBuffer();
  return res.status;
}

interface Flood {
  /** Resolves once the flood process has switched. */
  switchTo(state: "on" | "off"): Promise<void>;
  /** Ends the flood: its figures. */
  end(): Promise<FloodFigures>;
}

function startFlood(base: string, token: string): Flood {
  const proc = Bun.spawn([process.execPath, "run", "test/soak/flood.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      FLOOD_BASE: base,
      FLOOD_TOKEN: token,
      FLOOD_CONNECTIONS: String(FLOOD.connections),
      FLOOD_MAX_REQUESTS: String(FLOOD.maxRequests),
      FLOOD_MAX_SECONDS: String(FLOOD.maxSeconds),
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines = linesOf(proc.stdout);
  const tell = async (command: string): Promise<string> => {
    proc.stdin.write(`${command}\n`);
    proc.stdin.flush();
    const { value } = await lines.next();
    if (value === undefined)
      throw new Error(`the flood process exited (${await proc.exited}) when told ${command}`);
    return value;
  };
  return {
    async switchTo(state) {
      const answer = await tell(state);
      if (answer !== state) throw new Error(`the flood answered ${answer} to ${state}`);
    },
    async end() {
      const answer = await tell("end");
      await proc.exited;
      return JSON.parse(answer) as FloodFigures;
    },
  };
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let at = pending.indexOf("\n");
    while (at >= 0) {
      yield pending.slice(0, at);
      pending = pending.slice(at + 1);
      at = pending.indexOf("\n");
    }
  }
  if (pending) yield pending;
}

/** B is never limited nor failed, and the flood got no 5xx: else the figure would mean nothing. */
function checkAnswers(
  idle: Record<string, number>,
  flooded: Record<string, number>,
  flood: Record<string, number>,
): void {
  const unexpected = (statuses: Record<string, number>, allowed: (status: number) => boolean) =>
    Object.keys(statuses).filter((s) => !allowed(Number(s)));
  const wrong = [
    ...unexpected(idle, (s) => s === 200).map((s) => `B idle ${s}`),
    ...unexpected(flooded, (s) => s === 200).map((s) => `B under flood ${s}`),
    ...unexpected(flood, (s) => s < 500).map((s) => `A ${s}`),
  ];
  if (wrong.length > 0) throw new Error(`noisy neighbour: unexpected answers: ${wrong.join(", ")}`);
}

function describe(statuses: Record<string, number>): string {
  return Object.entries(statuses)
    .map(([status, count]) => `${count}× ${status}`)
    .join(", ");
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
