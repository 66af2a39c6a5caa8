import type { Embedder } from "../../src/embedding/embedder.ts";
import { procStatusMb, round } from "../stats.ts";
import { PARAPHRASE_PAIRS } from "./paraphrases.ts";
import { SENTENCES } from "./sentences.ts";

/** What one embedder costs and finds; every figure is taken in a process of its own. */
export interface EmbedderFigures {
  embedder: string;
  dims: number;
  load_ms: number;
  ms_per_sentence: { p50: number; p99: number; mean: number; sentences: number };
  /** Sentences a second when the 200 are sent in calls of this many texts. */
  sentences_per_s_by_call_size: Record<string, number>;
  /** A repeated query answered from the embedder's cache, when it has one. */
  cached_query_ms: number | null;
  /** RSS at each step; `_gc` after a full collection (what stays), `peak` the high-water mark. */
  rss_mb: {
    before_load: number;
    after_load: number;
    after_200_single: number;
    after_200_single_gc: number;
    after_batches: number;
    after_batches_gc: number;
    peak: number;
  };
  quality: { pairs: number; top1: number; mrr: number };
}

/** What the bench needs of an embedder (bench-only candidates need no runtime `kind`). */
export type Measured = Pick<Embedder, "dims" | "embed">;

/**
 * `load` makes the embedder ready (for the local one: loads the model) and returns it with the
 * embedder whose cache is measured (the same one, or null where there is no cache).
 */
export interface Candidate {
  name: string;
  load(): Promise<{ embedder: Measured; cached: Measured | null }>;
}

const CALL_SIZES = [1, 16, 64, 200];
const WARM_UP = ["A sentence to warm the code up.", "Another one, not in the corpus.", "And a third."];

export async function measure(candidate: Candidate): Promise<EmbedderFigures> {
  const beforeLoad = rss();
  const started = performance.now();
  const { embedder, cached } = await candidate.load();
  await embedder.embed([WARM_UP[0]!]);
  const loadMs = performance.now() - started;
  const afterLoad = rss();
  await embedder.embed(WARM_UP.slice(1));

  const single = await timeEach(embedder, SENTENCES);
  const after200 = rss();
  const after200Gc = rssAfterGc();
  const throughput: Record<string, number> = {};
  for (const size of CALL_SIZES) throughput[String(size)] = await sentencesPerSecond(embedder, size);
  const afterBatches = rss();
  const afterBatchesGc = rssAfterGc();

  return {
    embedder: candidate.name,
    dims: embedder.dims,
    load_ms: round(loadMs, 1),
    ms_per_sentence: {
      p50: round(percentile(single, 0.5), 3),
      p99: round(percentile(single, 0.99), 3),
      mean: round(single.reduce((a, b) => a + b, 0) / single.length, 3),
      sentences: single.length,
    },
    sentences_per_s_by_call_size: throughput,
    cached_query_ms: cached ? round(await cachedQueryMs(cached), 4) : null,
    rss_mb: {
      before_load: beforeLoad,
      after_load: afterLoad,
      after_200_single: after200,
      after_200_single_gc: after200Gc,
      after_batches: afterBatches,
      after_batches_gc: afterBatchesGc,
      peak: procStatusMb("self", "VmHWM") ?? Number.NaN,
    },
    quality: await quality(embedder),
  };
}

async function timeEach(embedder: Measured, texts: string[]): Promise<number[]> {
  const ms: number[] = [];
  for (const text of texts) {
    const t = performance.now();
    await embedder.embed([text]);
    ms.push(performance.now() - t);
  }
  return ms;
}

async function sentencesPerSecond(embedder: Measured, callSize: number): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < SENTENCES.length; i += callSize) await embedder.embed(SENTENCES.slice(i, i + callSize));
  return round(SENTENCES.length / ((performance.now() - t) / 1000), 1);
}

/** The mean time of 200 repeats of one query, after the first call has cached it. */
async function cachedQueryMs(embedder: Measured): Promise<number> {
  const query = "Which customer asked for a revised quote?";
  await embedder.embed([query]);
  const t = performance.now();
  for (let i = 0; i < 200; i++) await embedder.embed([query]);
  return (performance.now() - t) / 200;
}

/** Each question's own note ranked among the 24 notes by cosine: top-1 accuracy and mean reciprocal rank. */
async function quality(embedder: Measured): Promise<EmbedderFigures["quality"]> {
  const notes = await embedder.embed(PARAPHRASE_PAIRS.map((p) => p.note));
  const questions = await embedder.embed(PARAPHRASE_PAIRS.map((p) => p.question));
  let top1 = 0;
  let reciprocal = 0;
  questions.forEach((q, i) => {
    const own = dot(q, notes[i]!);
    const rank = 1 + notes.filter((n, j) => j !== i && dot(q, n) >= own).length;
    if (rank === 1) top1++;
    reciprocal += 1 / rank;
  });
  const n = PARAPHRASE_PAIRS.length;
  return { pairs: n, top1: round(top1 / n, 3), mrr: round(reciprocal / n, 3) };
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

function rss(): number {
  return procStatusMb("self") ?? Number.NaN;
}

function rssAfterGc(): number {
  Bun.gc(true);
  return rss();
}
