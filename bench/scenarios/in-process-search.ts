import { totalmem } from "node:os";
import type { Principal } from "../../src/auth/caller.ts";
import { createRuntime, type Runtime } from "../../src/compose/http.ts";
import { loadConfig } from "../../src/config/config.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { latencies } from "../load.ts";
import { removeTempDir, tempDir } from "../processes.ts";
import { type TenantRecall, tenantRecall } from "../recall.ts";
import { corpus, fillThroughActor } from "../search-fill.ts";
import { availableMb, median, procStatusMb, round, seconds } from "../stats.ts";

/**
 * One tenant of an in-process runtime (src/compose/http.ts `createRuntime`, no HTTP), filled through its
 * actor with `entry.createMany` (1,000 entries a message, a few in flight, embeddings computed
 * first as the batch route does), its index flushed (`index.flush` all), then searched by the
 * call `POST /memory/search` makes (`SearchService.search`: the query embedded, then `memory.search`
 * through the tenant actor with text and vector, all categories, limit 10), without HTTP. The
 * runtime is then stopped, which saves the index, and the saved index is compared with an exact
 * scan of the vault's vectors (bench/recall.ts).
 */
export interface InProcessOptions {
  entries: number;
  /** Rounds of `queries` sequential searches; each round reports its p50 and p99. */
  rounds: number;
  queries: number;
  /** Samples of `recallQueries` queries each for recall@10 (one figure per sample). */
  recallSamples: number;
  recallQueries: number;
  /** Times the runtime is stopped and created again on the same directory (time to the first search). */
  restarts: number;
  /** Aborts the fill (cleanly: what was written is measured) past this many seconds. */
  maxFillSeconds: number;
  log: (line: string) => void;
}

export interface InProcessResult {
  entries: number;
  /** Why the fill stopped early, if it did. */
  aborted?: string;
  fill_entries_per_s: number;
  fill_s: number;
  /** `index.flush` all after the fill: the vectors still pending then moved into the graph. */
  index_build_s: number;
  /** The first text search after the flush (the BM25 index is current already: the writes made it). */
  first_search_ms: number;
  search_p50_ms: number[];
  search_p99_ms: number[];
  rss_mb_after_search: number;
  rss_during_fill: Array<{ entries: number; rss_mb: number; anon_mb: number | undefined; at_s: number }>;
  restart_s: number[];
  rss_mb_after_restart: number[];
  recall: TenantRecall;
}

const SECRET = "in-process-bench-secret-0123456789abcdef";
/** The fill stops when the process gets this close to the machine's memory. */
const MEMORY_CEILING_SHARE = 0.85;
const MIN_AVAILABLE_MB = 1536;
const SAMPLE_EVERY = 10_000;

export async function inProcessSearch(o: InProcessOptions): Promise<InProcessResult> {
  const dataDir = tempDir("mrt-bench-ip-");
  // The hash embedder, as the rest of the bench (bench/processes.ts serviceEnv).
  const env = {
    MEMORY_RUNTIME_JWT_SECRET: SECRET,
    MEMORY_RUNTIME_DATA_DIR: dataDir,
    MEMORY_RUNTIME_EMBEDDER: "hash",
    MEMORY_RUNTIME_LOG: "off",
  };
  const start = () => startRuntime(env);
  let runtime: Runtime | undefined = start();
  try {
    const { services } = runtime;
    const dims = runtime.stores.config.embeddingDims;
    const tenantId = (await services.system.ask({ type: "tenant.create", name: "in-process" })).tenant_id;
    const totalQueries = Math.max(o.rounds * o.queries, o.recallSamples * o.recallQueries);
    let { documents, queries } = corpus(o.entries, totalQueries, 11);

    // The fill, watching memory: RSS (and its anonymous part: file pages of the LMDB map are
    // reclaimable) every SAMPLE_EVERY entries, stopped before the machine runs out.
    const ceilingMb = (totalmem() / 2 ** 20) * MEMORY_CEILING_SHARE;
    const fillStarted = performance.now();
    const rssDuringFill: InProcessResult["rss_during_fill"] = [];
    let aborted: string | undefined;
    let sampledAt = 0;
    const fill = await fillThroughActor(services.tenant(tenantId), services.embedder, documents, {
      afterBatch: (written) => {
        if (written - sampledAt >= SAMPLE_EVERY || written === documents.length) {
          sampledAt = written;
          const sample = {
            entries: written,
            rss_mb: round(process.memoryUsage().rss / 2 ** 20, 0),
            anon_mb: procStatusMb("self", "RssAnon"),
            at_s: seconds(fillStarted),
          };
          rssDuringFill.push(sample);
          if (o.entries >= 500_000)
            o.log(
              `  fill: ${written} entries, ${round(written / sample.at_s, 0)}/s, RSS ${sample.rss_mb} MB (anon ${sample.anon_mb} MB)`,
            );
          if (sample.rss_mb > ceilingMb || availableMb() < MIN_AVAILABLE_MB)
            aborted = `RSS ${sample.rss_mb} MB, ${round(availableMb(), 0)} MB available: memory ceiling reached`;
          else if (sample.at_s > o.maxFillSeconds) aborted = `fill exceeded ${o.maxFillSeconds} s`;
        }
        return aborted === undefined;
      },
    });
    if (aborted) o.log(`  fill aborted after ${fill.written} entries: ${aborted}`);
    documents = [];
    o.log(`  filled ${fill.written} entries in ${round(fill.seconds, 1)} s`);

    const actor = () => runtime!.services.tenant(tenantId);
    let t = performance.now();
    await actor().ask({ type: "index.flush", all: true });
    const indexBuild = seconds(t);
    o.log(`  index flushed in ${indexBuild} s`);

    const principal = tenantPrincipal(tenantId);
    const search = (i: number) => memorySearch(runtime!, principal, queries[i % queries.length]!);
    t = performance.now();
    await search(0);
    const firstSearch = round(performance.now() - t);
    const p50: number[] = [];
    const p99: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const round_ = await latencies(o.queries, (i) => search(r * o.queries + i));
      p50.push(round_.p50_ms);
      p99.push(round_.p99_ms);
    }
    const rssAfterSearch = round(process.memoryUsage().rss / 2 ** 20, 0);
    o.log(`  search p50 ${p50.join(" / ")} ms, p99 ${p99.join(" / ")} ms`);

    const restart: number[] = [];
    const rssAfterRestart: number[] = [];
    for (let r = 0; r < o.restarts; r++) {
      await runtime.stop();
      runtime = undefined;
      Bun.gc(true);
      t = performance.now();
      runtime = start();
      await search(r);
      restart.push(seconds(t));
      for (let i = 0; i < 20; i++) await search(i + 1);
      rssAfterRestart.push(round(process.memoryUsage().rss / 2 ** 20, 0));
      o.log(`  restart ${r + 1}: first search after ${restart.at(-1)} s, RSS ${rssAfterRestart.at(-1)} MB`);
    }

    await runtime.stop();
    runtime = undefined;
    Bun.gc(true);
    const samples: Float32Array[][] = [];
    for (let s = 0; s < o.recallSamples; s++)
      samples.push(
        await services.embedder.embed(queries.slice(s * o.recallQueries, (s + 1) * o.recallQueries)),
      );
    queries = [];
    const recallResult = await tenantRecall(tenantDir(dataDir, tenantId), dims, samples);
    o.log(`  recall@10 ${recallResult.recall_at_10.join(" / ")} (${recallResult.seconds} s)`);
    return {
      entries: fill.written,
      ...(aborted ? { aborted } : {}),
      fill_entries_per_s: Math.round(fill.written / fill.seconds),
      fill_s: round(fill.seconds),
      index_build_s: indexBuild,
      first_search_ms: firstSearch,
      search_p50_ms: p50,
      search_p99_ms: p99,
      rss_mb_after_search: rssAfterSearch,
      rss_during_fill: rssDuringFill,
      restart_s: restart,
      rss_mb_after_restart: rssAfterRestart,
      recall: recallResult,
    };
  } finally {
    if (runtime) await runtime.stop();
    removeTempDir(dataDir);
  }
}

/** A runtime of src/compose/http.ts as the service builds it, without its HTTP server. */
export function startRuntime(env: Record<string, string>): Runtime {
  return createRuntime({ config: loadConfig(env), env, log: () => undefined });
}

/** A tenant_admin of `tenantId`, as a verified token of theirs makes it. */
export function tenantPrincipal(tenantId: string): Principal {
  return {
    sub: "bench",
    tenantId,
    roles: ["tenant_admin"],
    admin: false,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  };
}

/** What `POST /memory/search` with `{ query, limit: 10 }` runs, minus HTTP: text and its vector. */
export function memorySearch(runtime: Runtime, principal: Principal, query: string) {
  // The service the route calls.
  return runtime.features.search.search(
    { principal, req: { method: "POST", path: "/memory/search" } },
    { query, limit: 10 },
  );
}

/** The median p50 and p99 of the rounds. */
export function searchMedians(r: InProcessResult) {
  return { p50_ms: median(r.search_p50_ms), p99_ms: median(r.search_p99_ms) };
}
