import { latencies } from "../load.ts";
import {
  kill,
  removeTempDir,
  type Started,
  serviceEnv,
  spawnProcess,
  startService,
  stop,
  tempDir,
} from "../processes.ts";
import { corpus, fillOverHttp, indexSettled, type TenantToken, timedSearch } from "../search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant, httpSearch } from "../service-api.ts";
import { procStatusMb, round, seconds } from "../stats.ts";

/**
 * Tenants of the service process (`bun run src/index.ts`), each bulk loaded over HTTP:
 * - bulk loads (`rounds` of them, each on a fresh service process and data directory): the whole
 *   corpus through `POST /memory/facts/batch` (1,000 entries a request, a few in flight), one run
 *   of entries/s each; then at once, on the process that loaded it, the first search (text, so
 *   text + vector: the cold path a user hits after an import), timed, then a second one; the
 *   service's VmRSS after the fill and after the first search. The loads before the last are then
 *   killed (their data is thrown away); the last one goes on:
 * - index build: from its first searches until `GET /tenants/{id}/healthz` reports no pending vector;
 * - search over HTTP: `rounds` rounds of `queries` sequential `POST /memory/search` (text, limit 10);
 * - restart: the service stopped (its index saved), then spawned again on the same data directory
 *   `restarts` times, timed from the spawn until a `POST /memory/search` on the tenant answers 200;
 *   its VmRSS is read after that and a few more searches.
 */
export interface ServiceSearchOptions {
  entries: number;
  rounds: number;
  queries: number;
  restarts: number;
  log: (line: string) => void;
}

/** One bulk load of a fresh service and the first searches on it. */
export interface BulkLoad {
  entries: number;
  fill_s: number;
  entries_per_s: number;
  first_search_ms: number;
  /** Results of the first search, and the entries it reported still waiting for a vector. */
  first_search_results: number;
  first_search_pending_vectors: number;
  second_search_ms: number;
  rss_mb_after_fill: number | undefined;
  rss_mb_after_first_search: number | undefined;
}

export interface ServiceSearchResult {
  entries: number;
  batch_entries_per_s: number[];
  first_search_after_bulk_ms: number[];
  bulk_loads: BulkLoad[];
  index_build_s: number;
  http_search_p50_ms: number[];
  http_search_p99_ms: number[];
  /** SIGTERM until exit, the index being saved. */
  stop_s: number;
  restart_ready_s: number[];
  rss_mb: number[];
  rss_parts: Array<{ anon_mb: number | undefined; file_mb: number | undefined }>;
}

const READY_TIMEOUT_MS = 120_000;
const SEARCHES_BEFORE_RSS = 20;

/** A fresh service and tenant, the documents bulk loaded, then the first two searches at once. */
async function bulkLoad(
  documents: string[],
  queries: [string, string],
): Promise<{ service: Started; tenant: TenantToken; load: BulkLoad }> {
  const service = await startService(BENCH_SECRET, { dataDir: tempDir("mrt-bench-search-") });
  try {
    const tenant = await createTenant(service.url, await adminToken(), "search");
    const fill = await fillOverHttp(service.url, tenant.token, documents);
    const rssAfterFill = procStatusMb(service.proc.pid);
    const first = await timedSearch(service.url, tenant.token, queries[0]);
    const rssAfterFirst = procStatusMb(service.proc.pid);
    const second = await timedSearch(service.url, tenant.token, queries[1]);
    const load: BulkLoad = {
      entries: fill.written,
      fill_s: round(fill.seconds),
      entries_per_s: Math.round(fill.written / fill.seconds),
      first_search_ms: first.ms,
      first_search_results: first.results,
      first_search_pending_vectors: first.pending_vectors,
      second_search_ms: second.ms,
      rss_mb_after_fill: rssAfterFill,
      rss_mb_after_first_search: rssAfterFirst,
    };
    return { service, tenant, load };
  } catch (error) {
    await kill(service);
    removeTempDir(service.dataDir!);
    throw error;
  }
}

export async function serviceSearch(o: ServiceSearchOptions): Promise<ServiceSearchResult> {
  let service: Started | undefined;
  let dataDir: string | undefined;
  try {
    const { documents, queries } = corpus(o.entries, o.rounds * o.queries, 7);
    const loads: BulkLoad[] = [];
    let tenant: TenantToken | undefined;
    for (let r = 0; r < o.rounds; r++) {
      const loaded = await bulkLoad(documents, [queries[2 * r]!, queries[2 * r + 1]!]);
      loads.push(loaded.load);
      const l = loaded.load;
      o.log(
        `  bulk load ${r + 1}: ${l.entries} entries at ${l.entries_per_s}/s; first search ${l.first_search_ms} ms ` +
          `(${l.first_search_results} results, ${l.first_search_pending_vectors} pending vectors), second ${l.second_search_ms} ms; ` +
          `VmRSS ${l.rss_mb_after_fill} → ${l.rss_mb_after_first_search} MB`,
      );
      if (r < o.rounds - 1) {
        await kill(loaded.service);
        removeTempDir(loaded.service.dataDir!);
      } else ({ service, tenant } = loaded);
    }
    if (!service || !tenant) throw new Error("no bulk load ran");
    dataDir = service.dataDir!;
    const indexBuild = round(await indexSettled(service.url, tenant), 2);
    o.log(`  index settled ${indexBuild} s after the first searches`);

    const p50: number[] = [];
    const p99: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const figures = await latencies(o.queries, async (i) => {
        const status = await httpSearch(service!.url, tenant.token, queries[r * o.queries + i]!);
        if (status !== 200) throw new Error(`search answered ${status}`);
      });
      p50.push(figures.p50_ms);
      p99.push(figures.p99_ms);
    }
    o.log(`  HTTP search p50 ${p50.join(" / ")} ms, p99 ${p99.join(" / ")} ms`);

    let t = performance.now();
    await stop(service);
    const stopSeconds = seconds(t);
    service = undefined;

    const ready: number[] = [];
    const rss: number[] = [];
    const rssParts: ServiceSearchResult["rss_parts"] = [];
    for (let r = 0; r < o.restarts; r++) {
      t = performance.now();
      service = await spawnProcess("src/index.ts", serviceEnv(BENCH_SECRET, dataDir));
      ready.push(await firstSearch(service, tenant.token, queries[r]!, t));
      for (let i = 0; i < SEARCHES_BEFORE_RSS; i++) await httpSearch(service.url, tenant.token, queries[i]!);
      rss.push(procStatusMb(service.proc.pid) ?? Number.NaN);
      // Anonymous memory (heap, native index) and file pages (the LMDB map, reclaimable).
      rssParts.push({
        anon_mb: procStatusMb(service.proc.pid, "RssAnon"),
        file_mb: procStatusMb(service.proc.pid, "RssFile"),
      });
      const parts = rssParts.at(-1)!;
      o.log(
        `  restart ${r + 1}: searchable after ${ready.at(-1)} s, VmRSS ${rss.at(-1)} MB (anon ${parts.anon_mb}, file ${parts.file_mb})`,
      );
      await stop(service);
      service = undefined;
    }
    return {
      entries: o.entries,
      batch_entries_per_s: loads.map((l) => l.entries_per_s),
      first_search_after_bulk_ms: loads.map((l) => l.first_search_ms),
      bulk_loads: loads,
      index_build_s: indexBuild,
      http_search_p50_ms: p50,
      http_search_p99_ms: p99,
      stop_s: stopSeconds,
      restart_ready_s: ready,
      rss_mb: rss,
      rss_parts: rssParts,
    };
  } finally {
    if (service) await stop(service);
    if (dataDir) removeTempDir(dataDir);
  }
}

/** Seconds from `startedAt` until a search on the tenant answers 200 (retried while not listening). */
export async function firstSearch(
  service: Started,
  token: string,
  query: string,
  startedAt: number,
): Promise<number> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (service.proc.exitCode !== null) throw new Error(`the service exited with ${service.proc.exitCode}`);
    try {
      const status = await httpSearch(service.url, token, query);
      if (status === 200) return seconds(startedAt);
      if (status !== 503) throw new Error(`search after restart answered ${status}`);
    } catch (error) {
      if (
        !(error instanceof Error && /ECONNREFUSED|Unable to connect|ConnectionRefused/i.test(error.message))
      )
        throw error;
    }
    await Bun.sleep(5);
  }
  throw new Error(`no search answered within ${READY_TIMEOUT_MS} ms of the restart`);
}
