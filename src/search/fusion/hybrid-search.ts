import type { Hit } from "../hit.ts";
import type { LexicalIndex } from "../lexical/lexical-index.ts";
import { lexicalText, type QueryAnalysis } from "../query-analysis.ts";
import type { VectorIndex } from "../vector/vector-index.ts";
import { type FusedHit, type FuseOptions, fuse } from "./hybrid.ts";

export interface HybridQuery {
  /** Matched lexically (the caller embeds it into `vector` beforehand if it wants both sides). */
  text?: string;
  /**
   * The query analysed once (query-analysis.ts), as the tenant's search passes it: its `lexical`
   * text is matched and `text` is not read. Without it, `text` is analysed here.
   */
  analysis?: Pick<QueryAnalysis, "lexical">;
  /** Unit-length or not; a zero vector counts as no vector. */
  vector?: Float32Array;
  k: number;
  /**
   * How many fused hits to keep when more than `k` (default `k`): the sides still propose as many
   * as `k` asks, and their union holds more than `k`, so the next ones cost nothing extra.
   */
  keep?: number;
  /** Visibility filter (tenant, category, tags, bi-temporal): asked only of contenders. */
  accept?: (id: string) => boolean;
  /**
   * Ids proposed besides the two sides' hits (entries linked to the query's entities:
   * src/search/controls/entities/), already accepted: scored on both sides like any candidate and kept
   * whatever their rank or score.
   */
  extra?: readonly string[];
}

/** The two indexes; the lexical one is asked for only when the query has words (it may be built lazily). */
export interface HybridIndexes {
  vectors: VectorIndex;
  lexical(): LexicalIndex;
}

// Each side proposes more than k so that a document ranked modestly by both sides can still win
// the fusion; the graph walk visits `expansionSearch` candidates anyway, so up to that many vector
// candidates cost almost nothing extra.
const CANDIDATES_PER_K = 3;
const MIN_CANDIDATES = 30;

/**
 * The one hybrid search, as the tenant actor runs it and the bench times it: the best `k` by `fuse`
 * (re-centred cosine and normalised BM25, weighed by the embedder's profile, `opts.profile`; see
 * fusion-profile.ts). Documents found by one side get their real score from the other, so fusion
 * compares like with like. Documents scoring 0 are dropped. Synchronous: embedding the query text
 * is the caller's (async) job.
 */
export function searchHybrid(indexes: HybridIndexes, query: HybridQuery, opts: FuseOptions = {}): FusedHit[] {
  // Text without a single word cannot match lexically: it is no text.
  const text = query.analysis ? query.analysis.lexical : lexicalText(query.text);
  const vector = query.vector && hasDirection(query.vector) ? query.vector : undefined;
  if (query.k <= 0 || (!text && !vector)) return [];
  const pool = Math.max(query.k * CANDIDATES_PER_K, MIN_CANDIDATES);
  const lexical = text ? indexes.lexical() : undefined;
  const vectorHits: Hit[] = vector
    ? filteredHits(pool, query.accept, (k, accept) => indexes.vectors.search(vector, k, accept))
    : [];
  const lexicalHits: Hit[] =
    lexical && text ? filteredHits(pool, query.accept, (k, accept) => lexical.search(text, k, accept)) : [];
  const vectorScoreOf = vector ? indexes.vectors.scorer(vector) : undefined;
  const lexicalScoreOf = lexical && text ? lexical.scorer(text) : undefined;
  const extra = new Set(query.extra ?? []);
  for (const hit of [...vectorHits, ...lexicalHits]) extra.delete(hit.id);
  // Proposed on the side that has words (else the vector's); their other side is filled in as usual.
  for (const id of extra)
    if (lexicalScoreOf) lexicalHits.push({ id, score: lexicalScoreOf(id) ?? 0 });
    else vectorHits.push({ id, score: vectorScoreOf?.(id) ?? 0 });
  const limit = Math.max(query.k, query.keep ?? 0);
  const fused = fuse(vectorHits, lexicalHits, {
    useVector: vector !== undefined,
    useLexical: text !== undefined,
    vectorScoreOf,
    lexicalScoreOf,
    limit: extra.size ? undefined : limit,
    ...opts,
  });
  // A score of 0 means no shared direction and no shared word: not a match, just a neighbour.
  return fused.filter((hit, i) => (hit.score > 0 && i < limit) || extra.has(hit.id));
}

/**
 * Most searches filter out few entries (the default is every category, valid and known now), so an
 * unfiltered search for twice the hits needed, filtered afterwards, costs far fewer filter checks
 * than consulting the filter on every candidate of the walk. Only when too few hits survive does it
 * search again with the filter inside.
 */
function filteredHits(
  k: number,
  accept: ((id: string) => boolean) | undefined,
  search: (k: number, accept?: (id: string) => boolean) => Hit[],
): Hit[] {
  if (!accept) return search(k);
  const wide = search(k * 2);
  // Best first, so the filter stops at the k-th survivor: it is asked of about k ids, not 2k
  // (each check may decode an entry from the vault).
  const kept: Hit[] = [];
  for (const hit of wide) {
    if (accept(hit.id)) kept.push(hit);
    if (kept.length === k) return kept;
  }
  if (wide.length < k * 2) return kept;
  return search(k, accept);
}

function hasDirection(vec: Float32Array): boolean {
  for (let i = 0; i < vec.length; i++) if (vec[i] !== 0) return true;
  return false;
}
