/**
 * The figures of each embedder's tiers (bench/scenarios/background-embedding.ts and
 * tier-search.ts), part of `bun run bench`, or alone with `BENCH_PART=embedding bun run bench`
 * (written to bench/results/background-embedding.json). Each embedder runs in a service process
 * of its own, one after the other; a `hash` service kept for the run takes one webhook load right
 * before each, and each embedder's webhook rate is also given as a ratio to that baseline's.
 *
 * BENCH_EMBEDDERS picks them (default hash,static,tiered,local; BENCH_EMBEDDER, one name, is still
 * read); the search tenant grows through BENCH_EMBEDDING_ENTRIES sizes (default 10,000 and, unless
 * BENCH_FULL=0, 100,000; `local` is searched at 10,000 only: embedding 100k takes ~20 minutes).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type Figure, figuresJson, table } from "./report.ts";
import {
  type BackgroundEmbeddingResult,
  backgroundEmbedding,
  webhookBaseline,
} from "./scenarios/background-embedding.ts";
import { machine, round, seconds } from "./stats.ts";

const DEFAULT_EMBEDDERS = "hash,static,tiered,local";

function embedders(): string[] {
  const names = process.env.BENCH_EMBEDDERS ?? process.env.BENCH_EMBEDDER ?? DEFAULT_EMBEDDERS;
  return names
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
}

export function embeddingEntries(): number[] {
  const sizes = process.env.BENCH_EMBEDDING_ENTRIES;
  if (sizes) return sizes.split(",").map(Number);
  return process.env.BENCH_FULL === "0" ? [10_000] : [10_000, 100_000];
}

export async function runBackgroundEmbedding(
  log: (line: string) => void,
): Promise<BackgroundEmbeddingResult[]> {
  const entries = embeddingEntries();
  const results: BackgroundEmbeddingResult[] = [];
  const baseline = await webhookBaseline();
  try {
    for (const embedder of embedders()) {
      const hashRate = await baseline.rate();
      log(
        `embedder ${embedder} (hash baseline just before: ${hashRate} events/s): webhook load and burst lag, then a tenant of ${entries.join(", ")} searched`,
      );
      results.push({
        ...(await backgroundEmbedding({ embedder, entries, log })),
        hash_baseline_events_per_s: hashRate,
      });
    }
  } finally {
    await baseline.close();
  }
  return results;
}

const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}m` : `${Math.round(n / 1000)}k`);

/** The targets for the default, `tiered` (issue 30, item 3). */
const TIERED_TARGETS: Record<string, Figure["target"]> = {
  webhook_ratio_to_hash_tiered: { op: ">=", value: 0.9 },
  first_lag_p99_s_tiered: { op: "<=", value: 1 },
  http_search_p50_ms_tiered_100k: { op: "<=", value: 3 },
  http_search_p99_ms_tiered_100k: { op: "<=", value: 8 },
};

/** One run each (the model's backlogs take minutes to drain). */
function figuresOf(r: BackgroundEmbeddingResult): Figure[] {
  const hashRate = r.hash_baseline_events_per_s;
  const k = r.embedder;
  const one = (key: string, value: number | undefined, note?: string): Figure[] =>
    value === undefined ? [] : [{ key, runs: [value], target: TIERED_TARGETS[key], note }];
  const model = k === "tiered" ? "upgrade" : "embed";
  return [
    ...one(`webhook_events_per_s_${k}`, r.webhook_events_per_s, "(32 connections, 1 event a delivery)"),
    ...(k !== "hash" && hashRate
      ? one(`webhook_ratio_to_hash_${k}`, round(r.webhook_events_per_s / hashRate), "(÷ hash just before)")
      : []),
    ...(k === "local"
      ? []
      : one(`commit_vectors_per_s_${k}`, r.commit_vectors_per_s, "(in the writes' commits)")),
    ...(r.lag_p50_s === undefined
      ? []
      : one(
          `${model}_vectors_per_s_${k}`,
          r.embed_vectors_per_s,
          "(model vectors while the backlog drains)",
        )),
    ...one(`first_lag_p50_s_${k}`, r.first_lag_p50_s, "(answer → first vector readable)"),
    ...one(`first_lag_p99_s_${k}`, r.first_lag_p99_s),
    ...one(`embed_lag_p50_s_${k}`, r.lag_p50_s, "(answer → the model's vector readable)"),
    ...one(`embed_lag_p99_s_${k}`, r.lag_p99_s, `(backlog ${r.backlog_at_load_end} at the load's end)`),
    ...r.search.flatMap((s) => [
      ...one(`http_search_p50_ms_${k}_${sizeLabel(s.entries)}`, s.p50_ms, "(distinct queries)"),
      ...one(
        `http_search_p99_ms_${k}_${sizeLabel(s.entries)}`,
        s.p99_ms,
        s.backlog ? `(${s.backlog} entries waiting for the model meanwhile)` : undefined,
      ),
    ]),
    ...one(`http_search_p99_ms_${k}_10k_repeated`, r.search_repeated?.p99_ms, "(query cache)"),
    ...one(`http_search_p99_ms_${k}_10k_while_embedding`, r.search_draining?.p99_ms, "(the model busy)"),
    ...one(`rss_mb_${k}`, r.rss_mb, "(the service after its searches)"),
    ...one(`rss_peak_mb_${k}`, r.rss_peak_mb, "(VmHWM)"),
  ];
}

export function embeddingFigures(results: BackgroundEmbeddingResult[]): Figure[] {
  return results.flatMap(figuresOf);
}

/** `BENCH_PART=embedding`: only this part, into its own results file. */
export async function embeddingOnly(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const results = await runBackgroundEmbedding(log);
  const figures = embeddingFigures(results);
  const file = process.env.BENCH_EMBEDDING_OUT ?? "bench/results/background-embedding.json";
  mkdirSync("bench/results", { recursive: true });
  const out = { ...figuresJson(figures), at: new Date().toISOString(), machine: machine(), details: results };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  console.log(`written to ${file}; wall time ${Math.round(seconds(started))} s`);
}
