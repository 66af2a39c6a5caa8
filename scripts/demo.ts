/**
 * `bun run demo`: the service on embedded defaults with a few days of history, so the dashboard
 * has something to show (docs/dashboard-and-metrics.md, "A demo with history").
 *
 * The dashboard's writes chart counts entries by their `recorded_at` day, which is the runtime's
 * transaction time: no request can set it. So the demo runs the runtime in this process with a
 * clock it controls: set `--days` days back, it writes each day's entries, bridge events, a
 * replayed and an open dead letter and a refused request through the HTTP API (`app.handle`), moving
 * the clock forward one day at a time (never back), then brings it to now and serves on `--port`.
 *
 *   bun run demo                        # 7 days, two tenants, http://127.0.0.1:8080/admin/dashboard
 *   bun run demo --port 0 --days 3      # any free port
 *   bun run demo --seed-only            # write the history, print a summary (JSON), stop
 *
 * The data directory is new each run (`--data-dir`, which must be empty, or a temporary one, removed
 * when the demo stops): backdated writes into a vault that has seen today would go back in time. The JWT secret is
 * MEMORY_RUNTIME_JWT_SECRET or a random one; the operator's token to paste is printed. The access
 * log is quiet unless MEMORY_RUNTIME_LOG says otherwise. Every other setting is the runtime's default
 * or the environment's (MEMORY_RUNTIME_EMBEDDER=hash starts fastest).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRuntime, type DataDirLock, lockDataDir, type MemoryRuntime } from "../src/lib.ts";
import { OPERATOR_TENANT_ID } from "../src/models/common.ts";
import { type Clock, systemClock } from "../src/runtime/clock.ts";
import { LOCK_FILE } from "../src/vault/data-dir-lock.ts";
import { intOption, parseCli } from "./cli.ts";
import { type DayPlan, dayPlan, TENANTS } from "./demo-history.ts";

const DAY_MS = 24 * 3600 * 1000;
const TOKEN_TTL_SECONDS = 3600;
/** The operator's token printed at the end: a working day. */
const OPERATOR_TTL_SECONDS = 12 * 3600;

/** Real time, shifted back by `behind` ms; the demo only ever moves it forward. */
class DemoClock implements Clock {
  constructor(private behind: number) {}

  now(): number {
    return Date.now() - this.behind;
  }

  setTimeout(fn: () => void, ms: number) {
    return systemClock.setTimeout(fn, ms);
  }

  forward(ms: number): void {
    this.behind = Math.max(0, this.behind - ms);
  }

  /** Real time from here on. */
  catchUp(): void {
    this.behind = 0;
  }
}

interface Options {
  port: number;
  days: number;
  dataDir: string;
  /** The demo made the directory (no --data-dir): it removes it when it stops serving. */
  temporary: boolean;
  seedOnly: boolean;
}

const USAGE = `Usage: bun run demo [options]

The service on embedded defaults with a few days of history written through its HTTP API, so the
dashboard has something to show; serves until Ctrl-C (docs/dashboard-and-metrics.md).

Options:
  --port N          where to serve, 0 for any free port (default: PORT, else 8080)
  --days N          days of history, 1 to 30 (default: 7)
  --data-dir DIR    an empty (or new) directory for the data (default: a temporary one, removed
                    when the demo stops)
  --seed-only       write the history, print a summary (JSON), stop
  -h, --help        show this help

Environment: MEMORY_RUNTIME_JWT_SECRET (default: a random one), MEMORY_RUNTIME_LOG (default:
error), MEMORY_RUNTIME_EMBEDDER (hash starts fastest).
`;

function options(): Options {
  const { values } = parseCli({
    usage: USAGE,
    options: {
      port: { type: "string" },
      days: { type: "string" },
      "data-dir": { type: "string" },
      "seed-only": { type: "boolean", default: false },
    },
  });
  const days = intOption(USAGE, "days", values.days, 7, [1, 30]);
  const port = intOption(USAGE, "port", values.port ?? process.env.PORT, 8080, [0, 65535]);
  const dataDir = values["data-dir"] ?? mkdtempSync(`${tmpdir()}/typed-memory-demo-`);
  return {
    port,
    days,
    dataDir,
    temporary: values["data-dir"] === undefined,
    seedOnly: values["seed-only"] ?? false,
  };
}

/** The fields of an answer the demo reads (an entry's or a tenant's id). */
type Answer = { id?: string; tenant_id?: string } & Record<string, unknown>;

/** The HTTP API in process: the requests a client would send, answered by the runtime's own app. */
class Api {
  constructor(private readonly runtime: MemoryRuntime) {}

  async call(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; body: Answer }> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await this.runtime.app.handle(
      new Request(`http://demo${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** A call that must succeed. */
  async ok(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
    const answer = await this.call(method, path, token, body);
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}

function mint(runtime: MemoryRuntime, tenantId: string, ttlSeconds = TOKEN_TTL_SECONDS): Promise<string> {
  const admin = tenantId === OPERATOR_TENANT_ID;
  return runtime.internals.services.tokens
    .mint({
      sub: admin ? "operator" : "demo-agent",
      tenantId,
      roles: admin ? [] : ["tenant_admin"],
      admin,
      ttlSeconds,
    })
    .then((minted) => minted.token);
}

/** One day of one tenant: its entries, its bridge events and what the plan says happens that day. */
async function writeDay(api: Api, runtime: MemoryRuntime, tenantId: string, plan: DayPlan): Promise<number> {
  const token = await mint(runtime, tenantId);
  const admin = await mint(runtime, OPERATOR_TENANT_ID);
  let written = 0;
  for (const write of plan.writes) {
    const answer = await api.ok("POST", `/memory/${write.path}`, token, write.body);
    written++;
    if (write.outcome) {
      await api.ok("POST", `/memory/outcomes`, token, write.outcome(String(answer.id)));
      written++;
    }
  }
  for (const event of plan.bridge) {
    const result = await runtime.bridge.deliver(tenantId, event);
    written += result.entries.length;
  }
  for (const eventId of plan.replay)
    await api.ok("POST", `/admin/webhooks/replay/${tenantId}/${encodeURIComponent(eventId)}`, admin);
  // A tenant's token on an operator route: refused, and recorded as the tenant's denial.
  if (plan.denied) await api.call("GET", "/admin/tenants", token);
  return written;
}

/**
 * The directory, taken for the demo (a server or another demo on it is named: DataDirInUse) before
 * it is found empty, so nothing starts on it between the check and the history's first write.
 */
function claimDataDir(dataDir: string): DataDirLock {
  const lock = lockDataDir(dataDir);
  if (existsSync(dataDir) && readdirSync(dataDir).some((name) => name !== LOCK_FILE)) {
    lock.release();
    throw new Error(`--data-dir ${dataDir} is not empty: the demo writes its history into a new one`);
  }
  return lock;
}

async function main(): Promise<void> {
  const opts = options();
  const dataDirLock = claimDataDir(opts.dataDir);
  const env: Record<string, string | undefined> = {
    ...process.env,
    MEMORY_RUNTIME_DATA_DIR: opts.dataDir,
    MEMORY_RUNTIME_JWT_SECRET: process.env.MEMORY_RUNTIME_JWT_SECRET ?? randomBytes(48).toString("base64url"),
    // The history's own requests would fill the screen above the address to open.
    MEMORY_RUNTIME_LOG: process.env.MEMORY_RUNTIME_LOG ?? "error",
  };
  const clock = new DemoClock((opts.days - 1) * DAY_MS);
  const runtime = createRuntime({ env, clock, dataDirLock });
  const api = new Api(runtime);
  const operator = await mint(runtime, OPERATOR_TENANT_ID);
  const tenants: Array<{ tenant_id: string; name: string }> = [];
  for (const name of TENANTS)
    tenants.push({
      tenant_id: String((await api.ok("POST", "/admin/tenants", operator, { name })).tenant_id),
      name,
    });
  const perDay: Array<{ day: string; entries: number }> = [];
  for (let day = 0; day < opts.days; day++) {
    if (day > 0) clock.forward(DAY_MS);
    let entries = 0;
    for (const [i, t] of tenants.entries())
      entries += await writeDay(api, runtime, t.tenant_id, dayPlan(day, opts.days, i));
    perDay.push({ day: new Date(clock.now()).toISOString().slice(0, 10), entries });
  }
  clock.catchUp();
  const token = await mint(runtime, OPERATOR_TENANT_ID, OPERATOR_TTL_SECONDS);
  const summary = { data_dir: opts.dataDir, tenants: tenants.map((t) => t.tenant_id), days: perDay };
  if (opts.seedOnly) {
    console.log(JSON.stringify(summary));
    await runtime.stop();
    dataDirLock.release();
    return;
  }
  const stop = () =>
    void runtime.stop().then(() => {
      dataDirLock.release();
      if (opts.temporary) rmSync(opts.dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  // Before the lines below: whoever reads them may signal at once. A closed terminal (SIGHUP) stops
  // it too, so a temporary data directory never outlives the demo.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, stop);
  const { url } = runtime.listen(opts.port);
  console.log(
    `typed-memory runtime demo: ${opts.days} days of history for ${tenants.length} tenants in ${opts.dataDir}`,
  );
  console.log(`history: ${perDay.map((d) => `${d.day}=${d.entries}`).join(" ")} (entries written per day)`);
  console.log(`dashboard: ${url}/admin/dashboard`);
  console.log(`admin token: ${token}`);
  console.log("Paste the token into the page's form (it expires in 12 h). Ctrl-C stops the demo.");
}

try {
  await main();
} catch (error) {
  console.error(`demo: ${(error as Error).message}`);
  process.exit(1);
}
