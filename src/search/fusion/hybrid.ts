import { byScoreThenId, type Hit } from "../hit.ts";
import { DEFAULT_FUSION, type FusionProfile } from "./fusion-profile.ts";

export interface FusedHit {
  id: string;
  score: number;
  /** Each side's part as weighed: the re-centred cosine and the normalised BM25, each in [0, 1]. */
  scores: { vector: number; lexical: number };
}

export interface FuseOptions {
  /** The embedder's weights and cosine centre (fusion-profile.ts); default an even share. */
  profile?: FusionProfile;
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

interface Pair {
  vector: number | undefined;
  lexical: number | undefined;
}

/**
 * Merges the vector and lexical hits of one query into one ranking, by normalised score (rank
 * fusion was measured and ranked worse: it throws away how far apart the scores are):
 *
 * - vector: the cosine re-centred on the embedder's level for unrelated texts,
 *   `(cos − centre) / (1 − centre)`, clamped to [0, 1];
 * - lexical: BM25 divided by the best BM25 among the fused documents, so the top lexical match
 *   scores 1 (the best match is always a candidate, so this does not depend on how many are);
 * - score: `w · vector + (1 − w) · lexical` with the profile's weight `w`, in [0, 1]. When the
 *   query has one side only, that side weighs 1; when no candidate's cosine reaches the profile's
 *   `minCosine` (no vector evidence), BM25 weighs 1.
 *
 * A document found by one side only gets its real score on the other side when the matching
 * `*ScoreOf` is given (both indexes can compute it in microseconds), else 0 there.
 * Ties are broken by id, so the order is deterministic.
 */
export function fuse(vectorHits: Hit[], lexicalHits: Hit[], opts: FuseOptions = {}): FusedHit[] {
  const profile = opts.profile ?? DEFAULT_FUSION;
  const useVector = opts.useVector ?? true;
  const useLexical = opts.useLexical ?? true;
  const pairs = collect(useVector ? vectorHits : [], useLexical ? lexicalHits : []);
  fillMissing(pairs, useVector, useLexical, opts);
  const evidence = useVector && bestVector(pairs) >= profile.minCosine;
  const [vectorWeight, lexicalWeight] = weights(useVector, useLexical, evidence, profile);
  const bestLexical = maxLexical(pairs);
  const centre = Math.min(profile.cosineCentre, 0.99);
  const fused: FusedHit[] = [];
  for (const [id, pair] of pairs) {
    const vector = clamp01(((pair.vector ?? 0) - centre) / (1 - centre));
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

function weights(
  useVector: boolean,
  useLexical: boolean,
  evidence: boolean,
  profile: FusionProfile,
): [number, number] {
  if (!useLexical) return [useVector ? 1 : 0, 0];
  if (!useVector || !evidence) return [0, 1];
  const vector = clamp01(profile.vectorWeight);
  return [vector, 1 - vector];
}

function bestVector(pairs: Map<string, Pair>): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const pair of pairs.values()) best = Math.max(best, pair.vector ?? Number.NEGATIVE_INFINITY);
  return best;
}

function maxLexical(pairs: Map<string, Pair>): number {
  let best = 0;
  for (const pair of pairs.values()) best = Math.max(best, pair.lexical ?? 0);
  return best;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
