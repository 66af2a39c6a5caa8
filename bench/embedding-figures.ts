/**
 * The background embedder's figures (bench/scenarios/background-embedding.ts), part of `bun run
 * bench`, or alone with `BENCH_PART=embedding bun run bench` (written to
 * bench/results/background-embedding.json). BENCH_EMBEDDER picks the embedder (default `local`);
 * the search tenant holds BENCH_EMBEDDING_ENTRIES entries (default 10,000).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type Figure, figuresJson, table } from "./report.ts";
import { type BackgroundEmbeddingResult, backgroundEmbedding } from "./scenarios/background-embedding.ts";
import { machine, seconds } from "./stats.ts";

export const EMBEDDING_ENTRIES = Number(process.env.BENCH_EMBEDDING_ENTRIES ?? 10_000);

export function runBackgroundEmbedding(log: (line: string) => void): Promise<BackgroundEmbeddingResult> {
  const embedder = process.env.BENCH_EMBEDDER ?? "local";
  log(`background embedder (${embedder}): webhook load, then a ${EMBEDDING_ENTRIES}-entry tenant searched`);
  return backgroundEmbedding({ embedder, entries: EMBEDDING_ENTRIES, log });
}

/** One run each (the scenario takes minutes: the backlog drains at the model's pace). */
export function embeddingFigures(r: BackgroundEmbeddingResult): Figure[] {
  const k = r.embedder;
  const size = `${Math.round(r.search_entries / 1000)}k`;
  return [
    {
      key: `webhook_events_per_s_${k}`,
      runs: [r.webhook_events_per_s],
      note: "(vectors made after the answer)",
    },
    { key: `embed_vectors_per_s_${k}`, runs: [r.embed_vectors_per_s], note: "(while a backlog drains)" },
    { key: `embed_lag_p50_s_${k}`, runs: [r.lag_p50_s], note: "(answer → vector stored, under that load)" },
    {
      key: `embed_lag_p99_s_${k}`,
      runs: [r.lag_p99_s],
      note: `(backlog ${r.backlog_at_load_end} at the load's end)`,
    },
    {
      key: `http_search_p50_ms_${k}_${size}`,
      runs: [r.search_p50_ms],
      note: "(distinct queries, each embedded)",
    },
    { key: `http_search_p99_ms_${k}_${size}`, runs: [r.search_p99_ms], target: { op: "<=", value: 25 } },
    {
      key: `http_search_p99_ms_${k}_${size}_repeated`,
      runs: [r.search_repeated_p99_ms],
      note: "(query cache)",
    },
    {
      key: `http_search_p99_ms_${k}_${size}_while_embedding`,
      runs: [r.search_draining_p99_ms],
      note: "(the model busy with entries)",
    },
  ];
}

/** `BENCH_PART=embedding`: only this part, into its own results file. */
export async function embeddingOnly(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const result = await runBackgroundEmbedding(log);
  const figures = embeddingFigures(result);
  const file = "bench/results/background-embedding.json";
  mkdirSync("bench/results", { recursive: true });
  const out = { ...figuresJson(figures), at: new Date().toISOString(), machine: machine(), details: result };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  console.log(`written to ${file}; wall time ${Math.round(seconds(started))} s`);
}
