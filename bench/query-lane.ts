/**
 * `bun run bench/query-lane.ts`: how long a search waits for its query vector from the local
 * sentence model (USE-lite, in its worker thread), with the model idle and while the background
 * embedder works through a backlog, for the model's scheduling before issue 30 (one first-come
 * lane, background batches whole) and after (a query lane, background batches in chunks of at
 * most BACKGROUND_CHUNK_CHARS characters). Every variant is measured in the same run, the
 * variants interleaved round by round; figures are ratios to the idle baseline of the same run.
 * Bounded: ROUNDS × QUERIES distinct queries per variant (each a cache miss), a backlog that
 * cannot run out meanwhile. Written to bench/results/query-lane.json.
 *
 * The query vector is what a `local` search waits for on top of the index work (1–2 ms at 10k),
 * so these are the search latencies' share that the background queue changes.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { parseCli } from "../scripts/cli.ts";
import { LOCAL_BACKGROUND_BATCH } from "../src/embedding/background-embedder.ts";
import { type EmbedItem, type EmbedQueue, EmbedScheduler } from "../src/embedding/embed-scheduler.ts";
import { LocalEmbedder } from "../src/embedding/local-embedder.ts";
import { BACKGROUND_CHUNK_CHARS, LocalModel, type LocalModelOptions } from "../src/embedding/local-model.ts";
import type { SentenceEncoder } from "../src/embedding/use-lite.ts";
import { loadUseLiteInWorker } from "../src/embedding/worker-encoder.ts";
import { systemClock } from "../src/runtime/clock.ts";
import { machine, median, round } from "./stats.ts";

parseCli({
  usage: `Usage: bun run bench/query-lane.ts

Query-vector latency of the local model, idle and during a backlog, before and after the query
lane (issue 30, item 5); ratios to the idle baseline of the same run, written to
bench/results/query-lane.json. BENCH_ROUNDS (default 3) and BENCH_QUERIES (default 60 a round).
`,
});

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 60);

interface Variant {
  name: string;
  model: Omit<LocalModelOptions, "load">;
  backlog: boolean;
}

const BEFORE = { queryLane: false, backgroundChunkChars: Number.POSITIVE_INFINITY };
const VARIANTS: Variant[] = [
  { name: "idle", model: {}, backlog: false },
  { name: "backlog_before", model: BEFORE, backlog: true },
  { name: "backlog_after", model: {}, backlog: true },
  { name: "backlog_after_chunk_1_text", model: { backgroundChunkChars: 0 }, backlog: true },
];

const WORDS =
  "ledger invoice budget review warehouse shipment contract renewal customer refund payroll audit incident outage release roadmap hiring onboarding vendor pricing discount forecast quarterly migration backup security".split(
    " ",
  );

/** Entry-like texts: mostly a sentence or two, some paragraphs, a few long notes (≤ 2,000 chars). */
function entryText(i: number): string {
  const r = (i * 7919) % 100;
  const chars = r < 70 ? 100 + (r % 7) * 30 : r < 95 ? 300 + (r % 5) * 150 : 1_200 + (r % 3) * 400;
  let text = `Note ${i}:`;
  for (let w = i; text.length < chars; w += 3) text += ` ${WORDS[w % WORDS.length]}`;
  return text;
}

/** Distinct short questions (each a cache miss). */
function queryText(round: number, i: number): string {
  const a = WORDS[(i * 5 + round) % WORDS.length];
  const b = WORDS[(i * 11 + round * 3 + 1) % WORDS.length];
  return `what happened with the ${a} and ${b} in round ${round} question ${i}?`;
}

/** A backlog that does not run out while the queries run; counts the vectors made. */
function endlessBacklog(): EmbedQueue & { made: number } {
  let next = 0;
  const queue = {
    made: 0,
    take: (max: number): EmbedItem[] =>
      Array.from({ length: max }, () => {
        const seq = ++next;
        return { seq, id: `e${seq}`, text: entryText(seq) };
      }),
    embedded: (items: EmbedItem[]) => {
      queue.made += items.length;
    },
    failed: () => undefined,
  };
  return queue;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(encoder: SentenceEncoder, v: Variant, round: number) {
  const model = new LocalModel({ ...v.model, load: async () => encoder });
  const embedder = new LocalEmbedder(model, 0);
  const limits = {
    batchSize: LOCAL_BACKGROUND_BATCH,
    concurrency: 1,
    backoffMs: 1_000,
    maxBackoffMs: 60_000,
  };
  const scheduler = new EmbedScheduler({ embedder, signature: "local/512", clock: systemClock, limits });
  const backlog = endlessBacklog();
  if (v.backlog) {
    scheduler.attach("bench", backlog);
    // The model busy before the first query.
    while (backlog.made < 4) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const started = performance.now();
  const ms: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await embedder.embed([queryText(round, i)]);
    ms.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  scheduler.stop();
  const madeDuring = backlog.made;
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), vectorsPerS: madeDuring / seconds };
}

const encoder = await loadUseLiteInWorker();
await encoder.embed(["warm up the model"]);
const runs: Record<string, Array<{ p50: number; p99: number; vectorsPerS: number }>> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const v of VARIANTS) {
    const figures = await measure(encoder, v, r);
    runs[v.name] = [...(runs[v.name] ?? []), figures];
    console.log(
      `round ${r + 1} ${v.name}: p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, background ${figures.vectorsPerS.toFixed(1)} vectors/s`,
    );
  }
}

const med = (name: string, key: "p50" | "p99" | "vectorsPerS") => median(runs[name]!.map((run) => run[key]));
const base = { p50: med("idle", "p50"), p99: med("idle", "p99") };
const figures = Object.fromEntries(
  VARIANTS.map((v) => [
    v.name,
    {
      p50_ms: round(med(v.name, "p50"), 1),
      p99_ms: round(med(v.name, "p99"), 1),
      p50_ratio_to_idle: round(med(v.name, "p50") / base.p50, 2),
      p99_ratio_to_idle: round(med(v.name, "p99") / base.p99, 2),
      background_vectors_per_s: round(med(v.name, "vectorsPerS"), 1),
    },
  ]),
);
const out = {
  at: new Date().toISOString(),
  machine: machine(),
  rounds: ROUNDS,
  queries_per_round: QUERIES,
  background_batch: LOCAL_BACKGROUND_BATCH,
  background_chunk_chars: BACKGROUND_CHUNK_CHARS,
  figures,
  runs,
};
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/query-lane.json", `${JSON.stringify(out, null, 2)}\n`);
console.table(figures);
process.exit(0);
