import { byScoreThenId, type Hit } from "./hit.ts";

export interface FusedHit {
  id: string;
  score: number;
  scores: { vector: number; lexical: number };
}

export interface FuseOptions {
  /** Weight of the vector side, default 0.6. */
  vectorWeight?: number;
  /** Weight of the lexical side, default 0.4. */
  lexicalWeight?: number;
  /** Whether the query had a vector (an embedding or embeddable text); default true. */
  useVector?: boolean;
  /** Whether the query had words to match lexically; default true. */
  useLexical?: boolean;
  /** Keep only the best `limit`. */
  limit?: number;
  /**
   * Real cosine of an id only the lexical side found (for example `VectorIndex.scorer`).
   * Without it such an id scores 0 on the vector side.
   */
  vectorScoreOf?: (id: string) => number | undefined;
  /**
   * Real raw BM25 of an id only the vector side found (for example `LexicalIndex.scorer`).
   * Without it such an id scores 0 on the lexical side.
   */
  lexicalScoreOf?: (id: string) => number | undefined;
}

const VECTOR_WEIGHT = 0.6;
const LEXICAL_WEIGHT = 0.4;

interface Pair {
  vector: number | undefined;
  lexical: number | undefined;
}

/**
 * Merges the vector and lexical hits of one query into one ranking. The vector score is the
 * cosine clamped to [0, 1]; the lexical score is BM25 divided by the best BM25 among the fused
 * documents, so it is in [0, 1] too and the top lexical match scores 1. The final score is the
 * weighted sum, and it is in [0, 1]: when the query has only one side, that side's weight is 1.
 *
 * A document found by one side only gets its real score on the other side when the matching
 * `*ScoreOf` is given (both indexes can compute it in microseconds), else 0 there.
 * Ties are broken by id, so the order is deterministic.
 */
export function fuse(vectorHits: Hit[], lexicalHits: Hit[], opts: FuseOptions = {}): FusedHit[] {
  const useVector = opts.useVector ?? true;
  const useLexical = opts.useLexical ?? true;
  const pairs = collect(useVector ? vectorHits : [], useLexical ? lexicalHits : []);
  fillMissing(pairs, useVector, useLexical, opts);
  const [vectorWeight, lexicalWeight] = weights(useVector, useLexical, opts);
  const bestLexical = maxLexical(pairs);
  const fused: FusedHit[] = [];
  for (const [id, pair] of pairs) {
    const vector = clamp01(pair.vector ?? 0);
    const lexical = bestLexical > 0 ? clamp01((pair.lexical ?? 0) / bestLexical) : 0;
    fused.push({ id, score: vectorWeight * vector + lexicalWeight * lexical, scores: { vector, lexical } });
  }
  fused.sort(byScoreThenId);
  return opts.limit === undefined ? fused : fused.slice(0, Math.max(0, opts.limit));
}

function collect(vectorHits: Hit[], lexicalHits: Hit[]): Map<string, Pair> {
  const pairs = new Map<string, Pair>();
  for (const hit of vectorHits) pairs.set(hit.id, { vector: hit.score, lexical: undefined });
  for (const hit of lexicalHits) {
    const pair = pairs.get(hit.id);
    if (pair) pair.lexical = hit.score;
    else pairs.set(hit.id, { vector: undefined, lexical: hit.score });
  }
  return pairs;
}

function fillMissing(
  pairs: Map<string, Pair>,
  useVector: boolean,
  useLexical: boolean,
  opts: FuseOptions,
): void {
  for (const [id, pair] of pairs) {
    if (useVector && pair.vector === undefined) pair.vector = opts.vectorScoreOf?.(id);
    if (useLexical && pair.lexical === undefined) pair.lexical = opts.lexicalScoreOf?.(id);
  }
}

function weights(useVector: boolean, useLexical: boolean, opts: FuseOptions): [number, number] {
  if (!useLexical) return [useVector ? 1 : 0, 0];
  if (!useVector) return [0, 1];
  const vector = Math.max(0, opts.vectorWeight ?? VECTOR_WEIGHT);
  const lexical = Math.max(0, opts.lexicalWeight ?? LEXICAL_WEIGHT);
  const total = vector + lexical;
  // Normalised so the score stays in [0, 1] whatever weights a caller picks.
  return total > 0 ? [vector / total, lexical / total] : [0.5, 0.5];
}

function maxLexical(pairs: Map<string, Pair>): number {
  let best = 0;
  for (const pair of pairs.values()) best = Math.max(best, pair.lexical ?? 0);
  return best;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
