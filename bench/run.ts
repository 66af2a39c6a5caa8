/**
 * `bun run bench`: every figure of issue 12 in one run, baselines measured in the same run, on the
 * same machine, with the same load generator (autocannon, in this process, sharing the cores);
 * each figure is the median of 3 runs, printed beside its target and written to
 * bench/results/latest.json (top-level keys below; runs, targets and details under other keys).
 *
 * What each figure measures:
 * - bare_route_rps: bare Elysia `GET /ping` (bench/bare-server.ts), req/s, 32 connections.
 * - get_by_id_ratio: service `GET /memory/facts/{id}` req/s (JWT, tenant actor) ÷ bare `GET /entry`
 *   (a small JSON object) req/s, the two loads taken back to back in each round.
 * - write_rps: service `POST /memory/facts`, 64 connections, a unique body each, every 2xx answered
 *   after its commit; write_ratio: that ÷ bare_route_rps of the same round.
 * - batch_entries_per_s: entries/s through `POST /memory/facts/batch` (1,000 a request, 4 in
 *   flight): a bulk load of the 100k search corpus into a fresh service, 3 loads.
 * - first_search_after_bulk_ms: the first `POST /memory/search` (text, embedded by the service:
 *   text + vector) at once after each of those bulk loads, on the service process that loaded it,
 *   no restart, nothing waited for: the cold path a user hits after an import.
 * - the storage floor's keys (raw lmdb-js puts of the service's record layout, and the write
 *   figures as ratios to it): bench/lmdb-floor.ts, measured in this run.
 * - search_p50_ms_100k / search_p99_ms_100k: the search `POST /memory/search` runs, minus HTTP
 *   (`SearchService.search`: the query embedded, then `memory.search` through the tenant actor, text
 *   + vector, all categories, limit 10), of an in-process runtime holding 100k entries; 3 rounds of
 *   500 sequential queries, the median of the rounds' p50s and of their p99s.
 * - http_search_p99_ms_100k: `POST /memory/search` over HTTP, sequential, on the last bulk-loaded
 *   service's 100k tenant once its index has settled.
 * - recall_at_10_100k: the in-process tenant's saved production index (TENANT_INDEX_FILE, its own
 *   tuning) against an exact scan of its vault's vectors, tie-aware; 3 samples of 500 queries.
 * - webhook_events_per_s: verified webhook events/s, the better of payments (1 event a delivery) and
 *   marketing_crm (100 a delivery), 32 connections, each a median of 3 loads.
 * - restart_ready_s_100k: seconds from spawning `bun run src/index.ts` on the 100k data directory
 *   until a `POST /memory/search` on that tenant answers 200.
 * - rss_mb_100k: the service's VmRSS after that restart and 20 searches.
 * - per embedder tier K of hash, static, tiered, local (a service process each, issue 30):
 *   webhook_events_per_s_K under the payments load and webhook_ratio_to_hash_K (÷ a hash service
 *   loaded just before); commit_vectors_per_s_K (vectors stored in the writes' commits), embed_vectors_per_s_local
 *   and upgrade_vectors_per_s_tiered (the model's, while the burst's backlog drains);
 *   first_lag_p50/p99_s_K (answer → a vector readable) and embed_lag_p50/p99_s_K (→ the model's
 *   vector: local, tiered); http_search_p50/p99_ms_K_10k and _100k (distinct queries, each
 *   embedded; local at 10k only, with _repeated and _while_embedding); rss_mb_K and rss_peak_mb_K:
 *   bench/embedding-figures.ts, alone with BENCH_PART=embedding (BENCH_EMBEDDERS=a,b picks).
 *
 * BENCH_SECONDS (default 5) sets each load's duration; BENCH_FULL=0 runs 10k instead of 100k (a
 * quick smoke, written to bench/results/tmp-smoke.json); BENCH_SCALE=1m runs bench/scale-1m.ts;
 * Every service the bench spawns runs with production telemetry: metrics, the access log (`info`)
 * and traces sampled at 10% to a local OTLP sink (bench/otlp-sink.ts; BENCH_TRACES=R or off).
 * BENCH_PART=service runs only the service's bulk loads, searches and restarts (bench/service-only.ts);
 * BENCH_PART=routes only part 1, the routes and webhooks (bench/route-figures.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseCli } from "../scripts/cli.ts";
import { embeddingFigures, embeddingOnly, runBackgroundEmbedding } from "./embedding-figures.ts";
import { floorFigures as floorFiguresOf, lmdbFloor } from "./lmdb-floor.ts";
import { type OtlpSink, startOtlpSink, traceRatioOf } from "./otlp-sink.ts";
import { cleanUp } from "./processes.ts";
import { type Figure, figuresJson, table } from "./report.ts";
import {
  failedRequestsOf,
  requestFigures,
  routeLoads,
  routesOnly,
  webhookBestOf,
  webhookFigure,
} from "./route-figures.ts";
import { scale1m } from "./scale-1m.ts";
import { inProcessSearch } from "./scenarios/in-process-search.ts";
import { serviceSearch } from "./scenarios/service-search.ts";
import { serviceOnly } from "./service-only.ts";
import { loadAverage, machine, seconds } from "./stats.ts";

parseCli({
  usage: `Usage: bun run bench

Every figure of issue 12 in one run, baselines measured in the same run, each the median of 3
runs, printed beside its target and written to bench/results/latest.json (what each figure
measures: the head of bench/run.ts). Services and baselines run as child processes on free
loopback ports, stopped with the bench (also on Ctrl-C, SIGTERM, SIGHUP). Takes no options but
-h, --help; the environment chooses:

  BENCH_SECONDS=N        each load's duration (default: 5)
  BENCH_FULL=0           10k entries instead of 100k (written to bench/results/tmp-smoke.json)
  BENCH_SCALE=1m         the 1M-entry run (bench/scale-1m.ts); BENCH_SERVICE_MEMORY_LIMIT_MB=N
                         runs its service in a memory cgroup of N MB, as a container would
  BENCH_PART=service     only the service's bulk loads, searches and restarts
  BENCH_PART=routes      only the HTTP routes and webhooks (ratios to the bare server)
  BENCH_PART=embedding   only the embedders' tier figures (BENCH_EMBEDDERS=hash,static,tiered,local)
  BENCH_TRACES=R|off     the services' traces sampled at ratio R (default 0.1, to a local sink), or off
`,
});

const ROUNDS = 3;
const QUERIES = 500;
const full = process.env.BENCH_FULL !== "0";
const SIZE = full ? 100_000 : 10_000;
const SIZE_LABEL = full ? "100k" : "10k";

const started = performance.now();
const log = (line: string) => console.log(`[${String(Math.round(seconds(started))).padStart(4)} s] ${line}`);

async function main(): Promise<void> {
  const scale = process.env.BENCH_SCALE;
  if (scale === "1m") return scale1m(log);
  if (process.env.BENCH_PART === "embedding") return embeddingOnly(log);
  if (process.env.BENCH_PART === "service") return serviceOnly(log);
  if (process.env.BENCH_PART === "routes") {
    tracesOn();
    return routesOnly(log);
  }
  if (scale) throw new Error(`BENCH_SCALE=${scale}: only 1m is known`);
  const machineInfo = machine();
  const traces = tracesOn();
  log(
    `bench: ${SIZE_LABEL} entries, ${process.env.BENCH_SECONDS ?? 5} s loads, ${ROUNDS} runs each, ` +
      `traces ${traces ? `sampled at ${traces.env.OTEL_TRACES_SAMPLER_ARG}` : "off"}, access log info, metrics on`,
  );

  // 1. HTTP routes and webhooks: the bare server and the service (bench/route-figures.ts).
  const loads = await routeLoads(ROUNDS, log);
  const { routes } = loads;

  // 2. The service's search tenant: batch fill, HTTP search, restart, RSS.
  log(`service process: ${SIZE_LABEL} entries through the batch route, search, restart`);
  const served = await serviceSearch({
    entries: SIZE,
    rounds: ROUNDS,
    queries: QUERIES,
    restarts: ROUNDS,
    log,
  });

  // 3. In-process: search through the tenant actor, recall of its saved index.
  log(`in-process runtime: ${SIZE_LABEL} entries through the tenant actor, search, recall`);
  const inProcess = await inProcessSearch({
    entries: SIZE,
    rounds: ROUNDS,
    queries: QUERIES,
    recallSamples: ROUNDS,
    recallQueries: QUERIES,
    restarts: 0,
    maxFillSeconds: 600,
    log,
  });

  // 4. A detail: the index alone (graph + BM25 + fusion, no actor, no vault) at 10k.
  log("index only, 10k entries");
  const indexOnly = await indexOnlyDetail();

  // 5. The background embedder (local): webhooks answered before their vectors, the lag, search.
  const embedding = await runBackgroundEmbedding(log);

  // The storage floor (bench/lmdb-floor.ts, issue 21 item 1) adds its figures here: its own
  // keys, measured in this run, and the write figures as ratios to it.
  log("lmdb-js floor of the vault's record layout");
  const floorFigures = floorFiguresOf(
    await lmdbFloor(),
    routes.map((r) => r.write.rps),
    served.batch_entries_per_s,
  );

  const figures: Figure[] = [
    ...requestFigures(routes),
    { key: "batch_entries_per_s", runs: served.batch_entries_per_s, target: { op: ">=", value: 100_000 } },
    ...floorFigures,
    {
      key: "first_search_after_bulk_ms",
      runs: served.first_search_after_bulk_ms,
      target: { op: "<=", value: 50 },
    },
    { key: `search_p50_ms_${SIZE_LABEL}`, runs: inProcess.search_p50_ms, target: { op: "<=", value: 1.0 } },
    { key: `search_p99_ms_${SIZE_LABEL}`, runs: inProcess.search_p99_ms, target: { op: "<=", value: 3.0 } },
    {
      key: `http_search_p99_ms_${SIZE_LABEL}`,
      runs: served.http_search_p99_ms,
      target: { op: "<=", value: 5.0 },
    },
    {
      key: `recall_at_10_${SIZE_LABEL}`,
      runs: inProcess.recall.recall_at_10,
      target: { op: ">=", value: 0.97 },
    },
    webhookFigure(loads.webhooks),
    { key: `restart_ready_s_${SIZE_LABEL}`, runs: served.restart_ready_s, target: { op: "<=", value: 2.0 } },
    { key: `rss_mb_${SIZE_LABEL}`, runs: served.rss_mb, target: { op: "<=", value: 400 } },
    ...embeddingFigures(embedding),
  ];
  const { top, runs, targets, pass } = figuresJson(figures);
  const failedRequests = failedRequestsOf(loads);
  const wall = seconds(started);
  const results = {
    ...top,
    runs,
    targets,
    pass,
    at: new Date().toISOString(),
    wall_s: wall,
    machine: { ...machineInfo, load_average_at_end: loadAverage() },
    settings: {
      traces_sampled: traces ? Number(traces.env.OTEL_TRACES_SAMPLER_ARG) : "off",
      trace_exports: traces?.exports(),
      entries: SIZE,
      rounds: ROUNDS,
      queries: QUERIES,
      load_seconds: Number(process.env.BENCH_SECONDS ?? 5),
    },
    details: {
      http_rounds: routes,
      webhooks: loads.webhooks,
      webhook_best: loads.webhooks[0]?.[webhookBestOf(loads.webhooks)]?.name,
      failed_requests: failedRequests,
      service_search: served,
      in_process_search: inProcess,
      index_only_10k: indexOnly,
      background_embedding: embedding,
    },
  };
  const file = full ? "bench/results/latest.json" : "bench/results/tmp-smoke.json";
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);

  console.log(`\n${table(figures)}\n`);
  console.log(
    `details: batch index build ${served.index_build_s} s after the bulk load (HTTP), ${inProcess.index_build_s} s (index.flush all, in-process); ` +
      `in-process fill ${inProcess.fill_entries_per_s} entries/s; first search after the flush ${inProcess.first_search_ms} ms; ` +
      ("error" in indexOnly
        ? `index only 10k: ${indexOnly.error}`
        : `index only 10k: hybrid p50 ${indexOnly.hybrid_p50_ms} ms, recall@10 ${indexOnly.recall_at_10}`),
  );
  for (const failed of failedRequests) console.log(`warning: ${failed}`);
  console.log(`written to ${file}; wall time ${Math.round(wall)} s`);
}

/**
 * Production telemetry for every service the bench spawns (they inherit this process's
 * environment): traces sampled to a local OTLP sink, beside the access log (`info`, the default)
 * and the metrics (always on). The in-process runtimes take their own environment and stay untraced.
 */
function tracesOn(): OtlpSink | undefined {
  const ratio = traceRatioOf(process.env.BENCH_TRACES);
  if (ratio === undefined) return undefined;
  openSink = startOtlpSink(ratio);
  Object.assign(process.env, openSink.env);
  return openSink;
}

/** The sink tracesOn started: stopped at the end, or its listening socket keeps the bench alive. */
let openSink: OtlpSink | undefined;

/**
 * The index alone is a detail, not a key, and the one part of the bench that drives the index
 * classes directly: loaded here, so that a change of their API costs this detail, not the run.
 */
async function indexOnlyDetail() {
  try {
    const { benchSearchIndex } = await import("./scenarios/search-index.ts");
    return await benchSearchIndex(10_000);
  } catch (error) {
    log(`  index only: skipped (${error instanceof Error ? error.message : String(error)})`);
    return { error: String(error) };
  }
}

process.on("exit", cleanUp);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.on(signal, () => {
    console.error(`bench: ${signal}, cleaning up`);
    cleanUp();
    process.exit(130);
  });

try {
  await main();
} catch (error) {
  console.error("bench failed:", error);
  process.exitCode = 1;
} finally {
  cleanUp();
  openSink?.stop();
}
