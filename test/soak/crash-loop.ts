/**
 * The crash loop: `cycles` × SIGKILL of a real server process at a random (seeded) moment of mixed
 * traffic (test/soak/traffic.ts), all on one data directory. Odd cycles run the server itself
 * (`src/index.ts`); even cycles the same runtime embedded with its messaging-bridge adapter
 * (test/soak/embedded-server.ts), since bridge events exist only in-process. After every restart,
 * before new traffic, each tenant is checked against what its clients were told
 * (test/soak/verify.ts); after the last kill, `src/index.ts` reopens everything, is checked, and
 * must stop cleanly on SIGTERM.
 *
 * Seeded: the kill points, the mix and every payload come from the seed; how requests interleave
 * depends on timing, so a replay of a seed is close to, not exactly, the same run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PAYMENTS_SECRET } from "../fakes/senders/payments.ts";
import { seededRandom } from "../helpers/random.ts";
import {
  adminTokenFor,
  httpCall,
  killHard,
  type ServerProcess,
  startServerProcess,
} from "../helpers/server-process.ts";
import { emptyFigures, type Figures, TenantLedger } from "./ledger.ts";
import { SoakClient } from "./soak-client.ts";
import { trafficUntilKill } from "./traffic.ts";
import { verifyTenant } from "./verify.ts";

const SECRET = "soak-crash-loop-secret-that-is-at-least-32-bytes!";
const DATA_TOKEN = "soak-data-platform-token";
const TENANTS = 2;
const EMBEDDED = "test/soak/embedded-server.ts";

export interface CrashLoopOptions {
  cycles: number;
  seed: number;
  log: (line: string) => void;
  /** Acknowledgements before a kill are drawn from [min, max). */
  killAfter?: { min: number; max: number };
}

export interface CrashLoopReport extends Figures {
  /** Distinct entries and dead letters acknowledged over the run (each is checked after every later restart). */
  distinctEntries: number;
  distinctDeadLetters: number;
  cycles: number;
  seed: number;
  kills: number;
  tenants: number;
  durationMs: number;
  /** Where the data and server logs are: kept when anything was found, removed otherwise. */
  dataDir: string;
}

interface Loop {
  dataDir: string;
  admin: string;
  env: Record<string, string>;
  servers: ServerProcess[];
  tenants: TenantLedger[];
  client: SoakClient;
  log: (line: string) => void;
}

async function start(loop: Loop, label: string, entry?: string): Promise<ServerProcess> {
  const server = await startServerProcess({
    dataDir: loop.dataDir,
    secret: SECRET,
    logDir: loop.dataDir,
    label,
    entry,
    env: loop.env,
  });
  loop.servers.push(server);
  return server;
}

/** Creates the tenants on a first server, stopped cleanly: their secrets must be in the next ones' environment. */
async function createTenants(loop: Loop): Promise<void> {
  const setup = await start(loop, "setup");
  for (let i = 0; i < TENANTS; i++) {
    const created = await httpCall(setup.base, "POST", "/admin/tenants", {
      token: loop.admin,
      body: { name: `Soak ${i + 1}` },
    });
    if (created.status !== 201)
      throw new Error(`creating a tenant: ${created.status} ${JSON.stringify(created.body)}`);
    const { tenant_id: id, token } = created.body;
    loop.tenants.push(new TenantLedger(id, token));
    loop.env[`DATA_WEBHOOK_TOKEN_${id}`] = DATA_TOKEN;
    loop.env[`PAYMENTS_WEBHOOK_SECRET_${id}`] = PAYMENTS_SECRET;
  }
  await stopCleanly(loop, setup);
}

async function stopCleanly(loop: Loop, server: ServerProcess): Promise<void> {
  server.proc.kill("SIGTERM");
  const code = await server.proc.exited;
  if (code !== 0) loop.client.figures.unclean.push(`server exited ${code} on SIGTERM: ${server.log()}`);
}

async function verifyAll(loop: Loop, server: ServerProcess): Promise<void> {
  const health = await httpCall(server.base, "GET", "/healthz");
  if (health.status !== 200 || health.body.status !== "ok")
    loop.client.figures.unclean.push(`/healthz → ${health.status} ${JSON.stringify(health.body)}`);
  for (const t of loop.tenants) await verifyTenant(server.base, loop.admin, t, loop.client.figures);
}

function findings(f: Figures): number {
  return f.losses.length + f.doubles.length + f.unclean.length;
}

export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const began = Date.now();
  const random = seededRandom(options.seed);
  const killAfter = options.killAfter ?? { min: 40, max: 250 };
  const figures = emptyFigures();
  const loop: Loop = {
    dataDir: mkdtempSync(join(tmpdir(), "mrt-soak-")),
    admin: await adminTokenFor(SECRET, 6 * 3600),
    env: {},
    servers: [],
    tenants: [],
    client: new SoakClient(figures, options.log),
    log: options.log,
  };
  let kills = 0;
  try {
    await createTenants(loop);
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const embedded = cycle % 2 === 0;
      const server = await start(loop, `cycle-${cycle}`, embedded ? EMBEDDED : undefined);
      const before = findings(figures);
      if (cycle > 1) await verifyAll(loop, server);
      const adapter = /bridge adapter on (http:\/\/\S+)/.exec(server.banner)?.[1];
      const target = { base: server.base, adapter, admin: loop.admin, dataToken: DATA_TOKEN };
      const stopAt = killAfter.min + Math.floor(random() * (killAfter.max - killAfter.min));
      const run = { target, tenants: loop.tenants, client: loop.client, random, cycle };
      const acks = await trafficUntilKill(run, server, stopAt);
      if (server.proc.signalCode !== "SIGKILL")
        figures.unclean.push(
          `cycle ${cycle}: the server ended by itself (${server.proc.exitCode}): ${server.log()}`,
        );
      else kills++;
      const found = findings(figures) - before;
      options.log(
        `cycle ${cycle}/${options.cycles} (${embedded ? "embedded + bridge" : "src/index.ts"}): ` +
          `killed after ${acks} acks, ${found === 0 ? "checks clean" : `${found} findings`}`,
      );
    }
    const last = await start(loop, "final-check");
    await verifyAll(loop, last);
    await stopCleanly(loop, last);
  } finally {
    for (const s of loop.servers) await killHard(s);
  }
  const clean = findings(figures) === 0 && figures.serverErrors === 0;
  if (clean) rmSync(loop.dataDir, { recursive: true, force: true });
  return {
    ...figures,
    distinctEntries: loop.tenants.reduce((n, t) => n + t.entries.size, 0),
    distinctDeadLetters: loop.tenants.reduce((n, t) => n + t.deadLetters.size, 0),
    cycles: options.cycles,
    seed: options.seed,
    kills,
    tenants: TENANTS,
    durationMs: Date.now() - began,
    dataDir: loop.dataDir,
  };
}

/** The report as the lines `bun run soak` prints. */
export function summaryLines(r: CrashLoopReport): string[] {
  const mix = Object.entries(r.acked)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${n}`)
    .join(", ");
  return [
    `crash loop: ${r.cycles} cycles, ${r.kills} × kill -9, ${r.tenants} tenants, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s`,
    `  requests tried ${r.requests}, acknowledged ${r.acknowledged}, refused (4xx) ${r.refused}, unanswered (killed) ${r.unanswered}, 5xx ${r.serverErrors}`,
    `  acknowledged by kind: ${mix}`,
    `  distinct acknowledged: entries ${r.distinctEntries}, dead letters ${r.distinctDeadLetters}`,
    `  checks summed over restarts: entries ${r.entriesChecked}, dead letters ${r.deadLettersChecked}, replay results ${r.replaysChecked}`,
    `  losses ${r.losses.length}, doubles ${r.doubles.length}, unclean reopenings ${r.unclean.length}`,
    ...[...r.losses, ...r.doubles, ...r.unclean].slice(0, 20).map((line) => `  ! ${line}`),
    ...(r.losses.length + r.doubles.length + r.unclean.length > 0
      ? [`  data and logs kept in ${r.dataDir}`]
      : []),
  ];
}
