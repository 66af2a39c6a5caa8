import type { Hit } from "./hit.ts";
import { type FusedHit, type FuseOptions, fuse } from "./hybrid.ts";
import type { LexicalIndex } from "./lexical-index.ts";
import { tokenize } from "./tokenize.ts";
import type { VectorIndex } from "./vector-index.ts";

export interface HybridQuery {
  /** Matched lexically (the caller embeds it into `vector` beforehand if it wants both sides). */
  text?: string;
  /** Unit-length or not; a zero vector counts as no vector. */
  vector?: Float32Array;
  k: number;
  /** Visibility filter (tenant, category, tags, bi-temporal): asked only of contenders. */
  accept?: (id: string) => boolean;
}

export interface HybridIndexes {
  vectors: VectorIndex;
  lexical: LexicalIndex;
}

// Each side proposes more than k so that a document ranked modestly by both sides can still win
// the fusion; the graph walk visits `expansionSearch` (64) candidates anyway, so up to that
// many vector candidates cost almost nothing extra.
const CANDIDATES_PER_K = 3;
const MIN_CANDIDATES = 30;

/**
 * One search over both indexes: the best `k` by `fuse` (0.6 cosine + 0.4 normalised BM25 by
 * default). Documents found by one side get their real score from the other, so fusion
 * compares like with like. Documents scoring 0 are dropped. Synchronous: embedding the query text is the caller's (async) job.
 */
export function searchHybrid(indexes: HybridIndexes, query: HybridQuery, opts: FuseOptions = {}): FusedHit[] {
  // Text without a single word cannot match lexically: it is no text.
  const text = query.text && tokenize(query.text).length > 0 ? query.text : undefined;
  const vector = query.vector && hasDirection(query.vector) ? query.vector : undefined;
  if (query.k <= 0 || (!text && !vector)) return [];
  const pool = Math.max(query.k * CANDIDATES_PER_K, MIN_CANDIDATES);
  const vectorHits: Hit[] = vector ? indexes.vectors.search(vector, pool, query.accept) : [];
  const lexicalHits: Hit[] = text ? indexes.lexical.search(text, pool, query.accept) : [];
  const fused = fuse(vectorHits, lexicalHits, {
    useVector: vector !== undefined,
    useLexical: text !== undefined,
    vectorScoreOf: vector ? indexes.vectors.scorer(vector) : undefined,
    lexicalScoreOf: text ? indexes.lexical.scorer(text) : undefined,
    limit: query.k,
    ...opts,
  });
  // A score of 0 means no shared direction and no shared word: not a match, just a neighbour.
  return fused.filter((hit) => hit.score > 0);
}

function hasDirection(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return true;
  return false;
}
