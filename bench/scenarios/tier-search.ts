/**
 * One embedder's search latency and memory (issue 30, item 6), on the service process of
 * background-embedding.ts, over HTTP: a tenant filled through the batch route to each size of
 * `sizes` in turn (10k, then 100k: one tenant growing), `POST /memory/search` (text only, limit 10,
 * sequential, distinct queries, each embedded by the service) at each size once its vector index
 * has taken the fill in.
 *
 * - `local`: before the distinct queries, 100 while the fill's entries are embedded (the model
 *   busy), then the backlog drained; 500 repeated queries afterwards (the query cache). Sizes
 *   beyond MAX_LOCAL_ENTRIES are not measured (embedding 100k entries takes about 20 minutes).
 * - `tiered`: the fill's upgrades are not waited for (the state right after a bulk load, the
 *   model upgrading meanwhile, sharing the cores): its distinct queries are "while embedding".
 * - RSS and its peak (VmRSS, VmHWM) of the service after the searches.
 */
import type { Started } from "../processes.ts";
import { corpus, fillOverHttp, type TenantToken } from "../search-fill.ts";
import { adminToken, createTenant, httpSearch } from "../service-api.ts";
import { procStatusMb, round } from "../stats.ts";
import { backlogOf, drained, health, quantile } from "./background-embedding.ts";

const DISTINCT = 500;
const DRAINING = 100;
const REPEATED_QUERIES = 20;
export const MAX_LOCAL_ENTRIES = 10_000;
/** The vector index's tail beyond which the tenant actor builds without waiting for a lull. */
const STEADY_TAIL = 2_048;
const SETTLE_TIMEOUT_MS = 10 * 60_000;

export interface SearchLatency {
  entries: number;
  p50_ms: number;
  p99_ms: number;
  /** Entries still waiting for a vector or an upgrade when the searches began. */
  backlog: number;
}

export interface TierSearch {
  search: SearchLatency[];
  /** `local`: searches while the first fill is embedded. */
  search_draining?: { p50_ms: number; p99_ms: number };
  /** `local`: the query cache. */
  search_repeated?: { p50_ms: number; p99_ms: number };
  rss_mb?: number;
  rss_peak_mb?: number;
}

async function timed(n: number, query: (i: number) => string, url: string, token: string) {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const status = await httpSearch(url, token, query(i));
    samples.push(performance.now() - t);
    if (status !== 200) throw new Error(`search answered ${status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50_ms: round(quantile(samples, 0.5)), p99_ms: round(quantile(samples, 0.99)) };
}

/**
 * Until the vector index has taken the fill in: no tail left, or (upgrades streaming into it,
 * `tiered`) no more than the tail it keeps under a steady stream of writes.
 */
async function settled(url: string, tenant: TenantToken): Promise<number> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const { index } = await health(url, tenant);
    const upgrading = (index.pending_upgrades ?? 0) > 0;
    if (index.pending_vectors === 0 && (index.pending === 0 || (upgrading && index.pending < STEADY_TAIL)))
      return backlogOf({ index });
    if (Date.now() > deadline) throw new Error(`index not settled: ${JSON.stringify(index)}`);
    await Bun.sleep(100);
  }
}

export async function tierSearch(
  service: Started,
  embedder: string,
  sizes: number[],
  log: (line: string) => void,
): Promise<TierSearch> {
  const measured = sizes.filter((n) => embedder !== "local" || n <= MAX_LOCAL_ENTRIES);
  const largest = Math.max(...measured);
  const tenant = await createTenant(service.url, await adminToken(), `tier-search-${embedder}`);
  const { documents, queries } = corpus(largest, DRAINING + DISTINCT * measured.length, 11);
  const out: TierSearch = { search: [] };
  let written = 0;
  for (const [i, size] of measured.entries()) {
    await fillOverHttp(service.url, tenant.token, documents.slice(written, size));
    written = size;
    if (embedder === "local" && i === 0) {
      out.search_draining = await timed(DRAINING, (q) => queries[q]!, service.url, tenant.token);
      log(
        `  ${size} entries written; searching while they are embedded: p99 ${out.search_draining.p99_ms} ms`,
      );
      await drained(service.url, tenant);
    }
    const backlog = await settled(service.url, tenant);
    const offset = DRAINING + i * DISTINCT;
    const latency = await timed(DISTINCT, (q) => queries[offset + q]!, service.url, tenant.token);
    out.search.push({ entries: size, ...latency, backlog });
    log(`  ${size} entries: search p50 ${latency.p50_ms} ms, p99 ${latency.p99_ms} ms (backlog ${backlog})`);
  }
  if (embedder === "local") {
    const first = DRAINING;
    out.search_repeated = await timed(
      DISTINCT,
      (q) => queries[first + (q % REPEATED_QUERIES)]!,
      service.url,
      tenant.token,
    );
  }
  out.rss_mb = procStatusMb(service.proc.pid);
  out.rss_peak_mb = procStatusMb(service.proc.pid, "VmHWM");
  return out;
}
