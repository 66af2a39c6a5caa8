import { latencies } from "../load.ts";
import {
  removeTempDir,
  type Started,
  serviceEnv,
  spawnProcess,
  startService,
  stop,
  tempDir,
} from "../processes.ts";
import { corpus, fillOverHttp, indexSettled } from "../search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant, httpSearch } from "../service-api.ts";
import { procStatusMb, round, seconds } from "../stats.ts";

/**
 * One tenant of the service process (`bun run src/index.ts`), filled once over HTTP and reused:
 * - batch writes: the fill itself, through `POST /memory/facts/batch` (1,000 entries a request,
 *   a few in flight), cut into `rounds` parts, each part one run of entries/s;
 * - index build: from the end of the fill until `GET /tenants/{id}/healthz` reports no pending vector;
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

export interface ServiceSearchResult {
  entries: number;
  batch_entries_per_s: number[];
  batch_part_entries: number[];
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

export async function serviceSearch(o: ServiceSearchOptions): Promise<ServiceSearchResult> {
  const dataDir = tempDir("mrt-bench-search-");
  let service: Started | undefined;
  try {
    service = await startService(BENCH_SECRET, { dataDir });
    const tenant = await createTenant(service.url, await adminToken(), "search");
    const { documents, queries } = corpus(o.entries, o.rounds * o.queries, 7);

    // Parts of whole batches, as even as they can be.
    const batches = Math.ceil(o.entries / 1000);
    const rates: number[] = [];
    const parts: number[] = [];
    let from = 0;
    for (let part = 0; part < o.rounds; part++) {
      const to = Math.min(o.entries, Math.round((batches * (part + 1)) / o.rounds) * 1000);
      const took = await fillOverHttp(service.url, tenant.token, documents.slice(from, to));
      rates.push(Math.round((to - from) / took));
      parts.push(to - from);
      from = to;
    }
    o.log(`  filled ${o.entries} entries over HTTP: ${rates.join(" / ")} entries/s`);
    const indexBuild = round(await indexSettled(service.url, tenant), 2);
    o.log(`  index settled ${indexBuild} s after the fill`);

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
      batch_entries_per_s: rates,
      batch_part_entries: parts,
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
    removeTempDir(dataDir);
  }
}

/** Seconds from `startedAt` until a search on the tenant answers 200 (retried while not listening). */
async function firstSearch(
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
