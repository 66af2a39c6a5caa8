/**
 * `BENCH_SCALE=1m bun run bench`: ONE tenant of the service process (`bun run src/index.ts`)
 * bulk loaded with 1,000,000 entries through `POST /memory/facts/batch` (1,000 a request, 4 in
 * flight), its memory read from /proc/<pid> of the service (the bench's own memory never counts).
 * Written to bench/results/scale-1m.json (top-level keys, each beside its target in `targets`):
 * - write_entries_per_s: the bulk load's rate;
 * - search_p50_ms / search_p99_ms: what `POST /memory/search` runs minus HTTP (`SearchService.search`:
 *   text + its vector through the tenant actor), 3 rounds of 500 sequential queries, in a runtime
 *   opened in the bench process on the service's data directory once the service has stopped (the
 *   same definition as the 100k `search_p50_ms_100k`); http_search_p50_ms / _p99_ms: the same
 *   queries over HTTP on the service that loaded them, after its index settled;
 * - recall_at_10: the index the service saved against an exact scan of the vault's vectors
 *   (bench/recall.ts, 500 queries);
 * - restart_s: the service stopped (index saved), spawned again on its data directory until a
 *   search answers 200, 3 times (the median);
 * - rss_mb: the service's VmRSS right after the bulk load;
 * - index_build_s: from the first searches until the tenant's health reports no pending vector;
 * - details.first_search_ms: the first search (HTTP, text + vector) at once after the bulk load, on
 *   the process that loaded it; details.rss_mb_after_search: VmRSS right after it; then the RSS
 *   after the index settled, after the search rounds, after each restart, during the fill (every
 *   10,000 entries) and the peak of readings every 250 ms (details.memory).
 * Memory stays bounded at every stage: a reading past 85% of the machine's memory, or less than
 * 1.5 GB left on it, kills the service at once and ends the run, which writes what it measured
 * with `aborted` saying where. BENCH_SCALE_MAX_MINUTES (default 60) bounds the fill (then the rest
 * is measured on what was written) and the index build. BENCH_SCALE_ENTRIES overrides the size (to
 * try the path on fewer: written to bench/results/tmp-scale.json).
 * BENCH_SERVICE_MEMORY_LIMIT_MB holds the service in a memory cgroup of that limit, as a
 * container would (bench/memory-limit.ts): its peak charge and OOM kills go to details.memory_limit.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tenantDir } from "../src/vault/tenant-paths.ts";
import { latencies } from "./load.ts";
import { MemoryLimit, type MemoryLimitFigures } from "./memory-limit.ts";
import { MemoryWatch } from "./memory-watch.ts";
import {
  kill,
  removeTempDir,
  type Started,
  serviceEnv,
  spawnProcess,
  startService,
  stop,
  tempDir,
} from "./processes.ts";
import { type TenantRecall, tenantRecall } from "./recall.ts";
import { type Figure, figuresJson, table } from "./report.ts";
import { memorySearch, startRuntime, tenantPrincipal } from "./scenarios/in-process-search.ts";
import { firstSearch } from "./scenarios/service-search.ts";
import { corpus, fillOverHttp, indexSettled, type TenantToken, timedSearch } from "./search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant, httpSearch } from "./service-api.ts";
import { machine, round, seconds } from "./stats.ts";

const ROUNDS = 3;
const QUERIES = 500;
const RESTARTS = 3;
const SAMPLE_EVERY = 10_000;
const SEARCHES_BEFORE_RSS = 20;

/** What the run measured so far: written as is when a stage ends it early. */
interface ScaleMeasures {
  entries: number;
  fill_s?: number;
  write_entries_per_s?: number;
  first_search_ms?: number;
  first_search_pending_vectors?: number;
  index_build_s?: number;
  http_search_p50_ms: number[];
  http_search_p99_ms: number[];
  stop_s?: number;
  restart_s: number[];
  search_p50_ms: number[];
  search_p99_ms: number[];
  recall?: TenantRecall;
  rss: Record<string, number | undefined>;
  rss_after_restart_mb: number[];
  /** BENCH_SERVICE_MEMORY_LIMIT_MB: the service's cgroup, read when the last service has stopped. */
  memory_limit?: MemoryLimitFigures;
}

export async function scale1m(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const machineInfo = machine();
  const entries = Number(process.env.BENCH_SCALE_ENTRIES ?? 1_000_000);
  const maxSeconds = Number(process.env.BENCH_SCALE_MAX_MINUTES ?? 60) * 60;
  log(`scale: ${entries} entries in one tenant of the service, through the batch route`);
  const m: ScaleMeasures = {
    entries: 0,
    http_search_p50_ms: [],
    http_search_p99_ms: [],
    restart_s: [],
    search_p50_ms: [],
    search_p99_ms: [],
    rss: {},
    rss_after_restart_mb: [],
  };
  const watches: MemoryWatch[] = [];
  let aborted: string | undefined;
  const dataDir = tempDir("mrt-bench-1m-");
  const limit = MemoryLimit.fromEnv();
  if (limit) log(`  the service runs in a memory cgroup of ${limit.limitMb} MB`);
  let service: Started | undefined;
  try {
    await measure(m, { entries, maxSeconds, dataDir, watches, log, limit }, (s) => {
      service = s;
    });
  } catch (error) {
    const exceeded = watches.find((w) => w.exceeded)?.exceeded;
    if (!exceeded) throw error;
    aborted = `memory: ${exceeded}`;
    log(`  aborted: ${aborted}`);
    process.exitCode = 1;
  } finally {
    for (const w of watches) w.stop();
    if (service) await kill(service);
    if (limit) {
      m.memory_limit = limit.figures();
      log(`  memory cgroup: ${JSON.stringify(m.memory_limit)}`);
      limit.remove();
    }
    removeTempDir(dataDir);
  }
  const fillAborted = m.entries < entries ? `the fill stopped at ${m.entries} entries` : undefined;
  write(m, watches, aborted ?? fillAborted, entries, machineInfo, seconds(started));
}

interface Stage {
  entries: number;
  maxSeconds: number;
  dataDir: string;
  watches: MemoryWatch[];
  log: (line: string) => void;
  limit?: MemoryLimit;
}

/**
 * Watches a service's memory; past a limit it is killed at once (its requests then fail). With
 * BENCH_SERVICE_MEMORY_LIMIT_MB the service joins its cgroup here, as soon as it is spawned.
 */
function watchService(service: Started, stage: Stage): MemoryWatch {
  stage.limit?.admit(service.proc.pid);
  const watch = new MemoryWatch(service.proc.pid, {
    onLimit: (why) => {
      stage.log(`  memory limit: ${why}; killing the service`);
      service.proc.kill("SIGKILL");
    },
  });
  stage.watches.push(watch);
  return watch;
}

async function measure(m: ScaleMeasures, stage: Stage, running: (s: Started | undefined) => void) {
  const { log } = stage;
  let service = await startService(BENCH_SECRET, { dataDir: stage.dataDir });
  running(service);
  let watch = watchService(service, stage);
  const tenant: TenantToken = await createTenant(service.url, await adminToken(), "scale");
  let { documents, queries } = corpus(stage.entries, ROUNDS * QUERIES, 11);

  // 1. The bulk load, read every SAMPLE_EVERY entries; stopped past the time bound.
  const fillStarted = performance.now();
  let sampledAt = 0;
  const fill = await fillOverHttp(service.url, tenant.token, documents, {
    afterBatch: (written) => {
      m.entries = written;
      if (written - sampledAt >= SAMPLE_EVERY) {
        sampledAt = written;
        const s = watch.sample("fill", written);
        if (stage.entries >= 200_000)
          log(
            `  fill: ${written} entries, ${Math.round(written / seconds(fillStarted))}/s, VmRSS ${s.rss_mb} MB`,
          );
      }
      return !watch.exceeded && seconds(fillStarted) < stage.maxSeconds;
    },
  });
  if (watch.exceeded) throw new Error(watch.exceeded);
  documents = [];
  m.entries = fill.written;
  m.fill_s = round(fill.seconds);
  m.write_entries_per_s = Math.round(fill.written / fill.seconds);
  m.rss.after_fill = watch.sample("after fill", fill.written).rss_mb;
  log(
    `  bulk loaded ${fill.written} entries in ${m.fill_s} s (${m.write_entries_per_s}/s), VmRSS ${m.rss.after_fill} MB`,
  );

  // 2. The first search at once, on the process that loaded the tenant.
  const first = await timedSearch(service.url, tenant.token, queries[0]!);
  m.first_search_ms = first.ms;
  m.first_search_pending_vectors = first.pending_vectors;
  m.rss.after_first_search = watch.sample("after first search").rss_mb;
  log(
    `  first search ${first.ms} ms (${first.pending_vectors} pending vectors), VmRSS ${m.rss.after_first_search} MB`,
  );

  // 3. The index settles; then searches over HTTP.
  m.index_build_s = round(
    await indexSettled(service.url, tenant, stage.maxSeconds * 1000, () => watch.exceeded),
    2,
  );
  m.rss.after_index_settled = watch.sample("index settled").rss_mb;
  log(`  index settled in ${m.index_build_s} s, VmRSS ${m.rss.after_index_settled} MB`);
  for (let r = 0; r < ROUNDS; r++) {
    const f = await latencies(QUERIES, async (i) => {
      const status = await httpSearch(service.url, tenant.token, queries[r * QUERIES + i]!);
      if (status !== 200) throw new Error(`search answered ${status}`);
    });
    m.http_search_p50_ms.push(f.p50_ms);
    m.http_search_p99_ms.push(f.p99_ms);
  }
  m.rss.after_http_searches = watch.sample("after HTTP searches").rss_mb;
  log(`  HTTP search p50 ${m.http_search_p50_ms.join(" / ")} ms, p99 ${m.http_search_p99_ms.join(" / ")} ms`);
  let t = performance.now();
  await stop(service);
  m.stop_s = seconds(t);
  watch.stop();

  // 4. Restarts of the service on its data directory.
  for (let r = 0; r < RESTARTS; r++) {
    t = performance.now();
    service = await spawnProcess("src/index.ts", serviceEnv(BENCH_SECRET, stage.dataDir));
    running(service);
    watch = watchService(service, stage);
    m.restart_s.push(await firstSearch(service, tenant.token, queries[r]!, t));
    for (let i = 0; i < SEARCHES_BEFORE_RSS; i++)
      await httpSearch(service.url, tenant.token, queries[i + 1]!);
    m.rss_after_restart_mb.push(watch.sample(`restart ${r + 1}`).rss_mb);
    log(
      `  restart ${r + 1}: searchable after ${m.restart_s.at(-1)} s, VmRSS ${m.rss_after_restart_mb.at(-1)} MB`,
    );
    await stop(service);
    watch.stop();
  }
  running(undefined);

  // 5. In-process: the search the route makes, through the tenant actor; then recall of the saved index.
  const self = new MemoryWatch("self");
  stage.watches.push(self);
  let runtime: ReturnType<typeof startRuntime> | undefined = startRuntime(
    serviceEnv(BENCH_SECRET, stage.dataDir),
  );
  try {
    const principal = tenantPrincipal(tenant.tenant_id);
    for (let r = 0; r < ROUNDS; r++) {
      if (self.exceeded) throw new Error(self.exceeded);
      const f = await latencies(QUERIES, (i) => memorySearch(runtime!, principal, queries[r * QUERIES + i]!));
      m.search_p50_ms.push(f.p50_ms);
      m.search_p99_ms.push(f.p99_ms);
    }
    m.rss.bench_process_in_process_search = self.sample("in-process search").rss_mb;
    log(`  in-process search p50 ${m.search_p50_ms.join(" / ")} ms, p99 ${m.search_p99_ms.join(" / ")} ms`);
    const sample = await runtime.services.embedder.embed(queries.slice(0, QUERIES));
    const dims = runtime.stores.config.embeddingDims;
    queries = [];
    await runtime.stop();
    runtime = undefined;
    m.recall = await tenantRecall(tenantDir(stage.dataDir, tenant.tenant_id), dims, [sample]);
    log(`  recall@10 ${m.recall.recall_at_10.join(" / ")} (${m.recall.seconds} s)`);
  } finally {
    if (runtime) await runtime.stop();
  }
}

function write(
  m: ScaleMeasures,
  watches: MemoryWatch[],
  aborted: string | undefined,
  asked: number,
  machineInfo: ReturnType<typeof machine>,
  wall: number,
) {
  const one = (v: number | undefined) => (v === undefined ? [] : [v]);
  const figures: Figure[] = [
    { key: "entries", runs: [m.entries] },
    { key: "write_entries_per_s", runs: one(m.write_entries_per_s), target: { op: ">=", value: 50_000 } },
    { key: "search_p50_ms", runs: m.search_p50_ms, target: { op: "<=", value: 2 } },
    { key: "search_p99_ms", runs: m.search_p99_ms, target: { op: "<=", value: 5 } },
    { key: "recall_at_10", runs: m.recall?.recall_at_10 ?? [], target: { op: ">=", value: 0.95 } },
    { key: "restart_s", runs: m.restart_s, target: { op: "<=", value: 3 } },
    { key: "rss_mb", runs: one(m.rss.after_fill), target: { op: "<=", value: 1536 } },
    { key: "first_search_ms", runs: one(m.first_search_ms), target: { op: "<=", value: 100 } },
    { key: "rss_mb_after_search", runs: one(m.rss.after_first_search), target: { op: "<=", value: 1536 } },
    { key: "index_build_s", runs: one(m.index_build_s) },
    { key: "http_search_p50_ms", runs: m.http_search_p50_ms },
    { key: "http_search_p99_ms", runs: m.http_search_p99_ms },
  ];
  const { top, runs, targets, pass } = figuresJson(figures);
  // The two figures of the first search after the load sit under `details` (issue 21's layout).
  const { first_search_ms, rss_mb_after_search, ...topLevel } = top;
  const out = {
    ...topLevel,
    ...(aborted ? { aborted } : {}),
    runs,
    targets,
    pass,
    details: {
      first_search_ms,
      rss_mb_after_search,
      first_search_pending_vectors: m.first_search_pending_vectors,
      fill_s: m.fill_s,
      stop_s: m.stop_s,
      rss_mb_after_restart: m.rss_after_restart_mb,
      memory: {
        stages_mb: m.rss,
        peak_service_mb: Math.max(0, ...watches.filter((w) => w.pid !== "self").map((w) => w.peakMb)),
        samples: watches.flatMap((w) => w.samples),
      },
      recall: m.recall,
      ...(m.memory_limit ? { memory_limit: m.memory_limit } : {}),
    },
    at: new Date().toISOString(),
    wall_s: wall,
    machine: machineInfo,
    settings: { entries: asked, rounds: ROUNDS, queries: QUERIES, restarts: RESTARTS },
  };
  mkdirSync("bench/results", { recursive: true });
  const file = asked === 1_000_000 ? "bench/results/scale-1m.json" : "bench/results/tmp-scale.json";
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  if (aborted) console.log(`the run was cut short: ${aborted}`);
  console.log(`written to ${file}; wall time ${round(wall / 60, 1)} min`);
}
