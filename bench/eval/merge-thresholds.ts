/**
 * Measures the merge threshold on the labelled set (merge-set.ts): per similarity and threshold,
 * the false-merge rate (hard negatives merged) and the missed-merge rate (duplicates not merged),
 * with and without the deterministic veto (src/merge/merge-veto.ts), and the share of pairs the
 * review band flags. `bun bench/eval/merge-thresholds.ts` prints the table docs/memory.md quotes.
 *
 * Similarities: `words` is the runtime's own (similar.ts: the term sets' cosine; what every
 * server-side embedder uses, `hash`, `static` and `tiered` included, since their vectors are made
 * from the same words); `hash` and `static` are the higher of it and that embedder's vector cosine
 * (what a write's own vector adds, as `client` does).
 */
import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";
import { StaticEmbedder } from "../../src/embedding/static-embedder.ts";
import { mergeVeto } from "../../src/merge/merge-veto.ts";
import { MERGE_THRESHOLD, REVIEW_THRESHOLD } from "../../src/models/merge.ts";
import { termSet, termSetCosine } from "../../src/search/lexical/term-set.ts";
import { type LabelledPair, mergeSet } from "./merge-set.ts";

export interface Rates {
  similarity: string;
  threshold: number;
  veto: boolean;
  falseMerge: number;
  missedMerge: number;
  /** Pairs in [REVIEW_THRESHOLD, threshold) or vetoed above it: a person's, neither merged nor lost. */
  flagged: number;
}

type Score = (a: string, b: string) => number;

function cosine(x: Float32Array, y: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < x.length; i++) dot += x[i]! * y[i]!;
  return dot;
}

const words: Score = (a, b) => termSetCosine(termSet(a), termSet(b));

function withVectors(embed: (text: string) => Float32Array): Score {
  return (a, b) => Math.max(words(a, b), cosine(embed(a), embed(b)));
}

export function similarities(): Record<string, Score> {
  const hash = new HashEmbedder();
  const stat = new StaticEmbedder();
  return {
    words,
    hash: withVectors((t) => hash.embedSync(t)),
    static: withVectors((t) => stat.embedSync(t)),
  };
}

export function ratesOf(pairs: LabelledPair[], scores: number[], threshold: number, veto: boolean) {
  let falseMerge = 0;
  let missed = 0;
  let flagged = 0;
  const negatives = pairs.filter((p) => !p.duplicate).length;
  pairs.forEach((p, i) => {
    const score = scores[i]!;
    const vetoed = veto && mergeVeto(p.a, p.b) !== undefined;
    const merged = score >= threshold && !vetoed;
    if (!merged && score >= REVIEW_THRESHOLD) flagged++;
    if (merged && !p.duplicate) falseMerge++;
    if (!merged && p.duplicate) missed++;
  });
  return {
    falseMerge: falseMerge / negatives,
    missedMerge: missed / (pairs.length - negatives),
    flagged: flagged / pairs.length,
  };
}

export function measure(thresholds = [0.8, 0.85, 0.9, 0.95]): Rates[] {
  const pairs = mergeSet();
  const rows: Rates[] = [];
  for (const [similarity, score] of Object.entries(similarities())) {
    const scores = pairs.map((p) => score(p.a, p.b));
    for (const threshold of thresholds)
      for (const veto of [false, true])
        rows.push({ similarity, threshold, veto, ...ratesOf(pairs, scores, threshold, veto) });
  }
  return rows;
}

if (import.meta.main) {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const pairs = mergeSet();
  console.log(`${pairs.length} pairs, ${pairs.filter((p) => p.duplicate).length} duplicates`);
  for (const [similarity, score] of Object.entries(similarities())) {
    const kinds = new Map<string, number[]>();
    for (const p of pairs) {
      if (mergeVeto(p.a, p.b)) continue;
      const list = kinds.get(p.kind) ?? [];
      list.push(score(p.a, p.b));
      kinds.set(p.kind, list);
    }
    const spans = [...kinds].map(
      ([k, s]) => `${k} ${Math.min(...s).toFixed(2)}–${Math.max(...s).toFixed(2)}`,
    );
    console.log(`${similarity}, unvetoed pairs' scores: ${spans.join(", ")}`);
  }
  console.log("similarity | threshold | veto | false-merge | missed-merge | flagged for review");
  for (const r of measure()) {
    const chosen = r.threshold === MERGE_THRESHOLD ? " (chosen)" : "";
    console.log(
      `${r.similarity} | ${r.threshold}${chosen} | ${r.veto ? "yes" : "no"} | ${pct(r.falseMerge)} | ${pct(r.missedMerge)} | ${pct(r.flagged)}`,
    );
  }
}
