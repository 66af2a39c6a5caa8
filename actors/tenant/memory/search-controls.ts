import { dotAt } from "../../../src/embedding/vector-math.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type { RerankExplain } from "../../../src/models/rerank.ts";
import type { ResultExplain, SearchControls } from "../../../src/models/search-controls.ts";
import type { Linked } from "../../../src/search/controls/entities/entity-hops.ts";
import { asksAbout } from "../../../src/search/controls/entities/entity-question.ts";
import { mmr } from "../../../src/search/controls/mmr.ts";
import { recencyFactor } from "../../../src/search/controls/recency.ts";
import { reranked } from "../../../src/search/controls/rerank/rerank-stage.ts";
import type { RerankAsk } from "../../../src/search/controls/rerank/reranker.ts";
import {
  type AnchorIndex,
  sharesAnchor,
  spreadBySource,
  spreadBySourceAndObject,
} from "../../../src/search/controls/source-spread.ts";
import { windowExplain } from "../../../src/search/controls/time/query-time.ts";
import { estimateTokens, fitsBudget } from "../../../src/search/controls/token-budget.ts";
import type { FusedHit } from "../../../src/search/fusion/hybrid.ts";
import { matchedWordsOf } from "../../../src/search/lexical/matched-terms.ts";
import { termSet, termSetCosine } from "../../../src/search/lexical/term-set.ts";
import type { QueryAnalysis } from "../../../src/search/query-analysis.ts";

/** What the controls read of a search message (SearchEntries). */
export interface ControlledQuery {
  /** The query as the search analysed it, once (src/search/query-analysis.ts): text, time, words. */
  query: QueryAnalysis;
  limit: number;
  validAt: number;
  asOf: number;
  controls?: SearchControls;
  /** The re-ranking stage's part in this search (src/search/controls/rerank/rerank-stage.ts). */
  rerank?: RerankAsk;
}

/** What sizes a search's candidate pool: its page, its controls, the re-ranker's top. */
type PoolAsk = Pick<ControlledQuery, "limit" | "controls" | "rerank">;

/** What the controls read of the tenant: entry views (the search's filter) and the two indexes. */
export interface ControlContext {
  view(id: string): Entry | undefined;
  vectors: { vectorOf(id: string): Float32Array | undefined };
  lexical(): AnchorIndex;
  /** The source object an entry is about (src/search/controls/entities/entity-index.ts), for the spread. */
  objectOf?(id: string): string | undefined;
}

export interface ControlledResult {
  entry: Entry;
  score: number;
  scores: { vector: number; lexical: number };
  explain?: ResultExplain;
}

interface Ranked {
  entry: Entry;
  relevance: number;
  recency?: number;
  score: number;
  scores: { vector: number; lexical: number };
  redundancy?: number;
  spread?: true;
  rerank?: RerankExplain;
  /** The time window's factor (src/search/controls/time/time-boost.ts), already in `relevance`. */
  time?: number;
  /** What its episode lent it (src/search/controls/context/episodes.ts), already in `relevance`. */
  context?: number;
  /** Linked to the query through entities (src/search/controls/entities/entity-hops.ts). */
  linked?: Linked;
}

// A reranking control (recency, diversity) may lift a result from below the first `limit` by
// relevance: it chooses among this many times `limit` candidates, within these bounds. MMR costs
// about limit × candidates similarities (dot products of stored vectors, or term-set overlaps).
const RERANK_FACTOR = 3;
const MIN_RERANK = 30;
const MAX_RERANK = 200;

/** How many hybrid hits a search asks for: `limit`, or a wider pool when results are reranked. */
export function candidatesFor(q: PoolAsk): number {
  const c = q.controls;
  return !c?.recency && !c?.diversity ? q.limit : spreadPoolFor(q);
}

/**
 * How many fused hits the source spread (source-spread.ts) chooses among, and the reranking pool:
 * kept from the hits both sides propose for `limit` anyway (hybrid-search.ts), so it costs no
 * more search.
 */
export function spreadPoolFor(q: PoolAsk): number {
  const pool = Math.min(Math.max(q.limit * RERANK_FACTOR, MIN_RERANK), Math.max(MAX_RERANK, q.limit));
  return Math.max(pool, q.rerank?.top ?? 0);
}

/**
 * A ranked search's results, with its controls applied in this order: the recency factor
 * multiplies each relevance (and the pool is sorted again), `min_score` drops what scores below it,
 * `diversity` picks `limit` by maximal marginal relevance (else the best `limit`, spread over the
 * entries' sources: source-spread.ts), `max_tokens`
 * keeps the prefix that fits, and `explain` says how each result got there.
 */
export function controlledResults(
  hits: ReadonlyArray<FusedHit & { linked?: Linked; time?: number; context?: number }>,
  q: ControlledQuery,
  ctx: ControlContext,
): ControlledResult[] {
  const c = q.controls ?? {};
  let ranked: Ranked[] = hits.map((hit) => {
    const relevance = round(hit.score);
    const scores = { vector: round(hit.scores.vector), lexical: round(hit.scores.lexical) };
    const linked = hit.linked ? { linked: hit.linked } : {};
    const time = hit.time === undefined ? {} : { time: round(hit.time) };
    const context = hit.context === undefined ? {} : { context: round(hit.context) };
    return { entry: ctx.view(hit.id)!, relevance, score: relevance, scores, ...linked, ...time, ...context };
  });
  if (c.recency) ranked = boosted(ranked, q, c.recency);
  if (c.minScore !== undefined) ranked = ranked.filter((r) => r.score >= c.minScore!);
  if (q.rerank) ranked = reranked(ranked, q.rerank, q.query, () => ctx.lexical());
  // A re-ranking service's candidates: the pool's top as it is, no page chosen (rerank-search.ts).
  if (q.rerank && "collect" in q.rerank) return finish(ranked, { ...q, controls: undefined }, ctx);
  ranked = c.diversity ? diversified(ranked, c.diversity, q.limit, ctx) : spread(ranked, q, ctx);
  return finish(ranked, q, ctx);
}

/** A filter-only search's page (newest first, score 0): `min_score`, `max_tokens` and `explain` apply. */
export function controlledPage(
  page: ReadonlyArray<{ entry: Entry; score: number; scores: { vector: number; lexical: number } }>,
  q: ControlledQuery,
  ctx: ControlContext,
): ControlledResult[] {
  const minScore = q.controls?.minScore;
  const ranked = page
    .filter((r) => minScore === undefined || r.score >= minScore)
    .map((r) => ({ ...r, relevance: r.score }));
  return finish(ranked, q, ctx);
}

function boosted(ranked: Ranked[], q: ControlledQuery, recency: NonNullable<SearchControls["recency"]>) {
  const { field, halfLifeMs, weight } = recency;
  // Age from the query's own time on that axis: valid time from valid_at, transaction time from as_of.
  const from = field === "valid_from" ? q.validAt : q.asOf;
  for (const r of ranked) {
    r.recency = round(recencyFactor(from - Date.parse(r.entry[field]), halfLifeMs, weight));
    r.score = round(r.relevance * r.recency);
  }
  return ranked.sort((a, b) => b.score - a.score || b.relevance - a.relevance || byId(a, b));
}

/** The best `limit`, with a place for each source that has a candidate close to the best. */
function spread(ranked: Ranked[], q: ControlledQuery, ctx: ControlContext): Ranked[] {
  const [best] = ranked;
  const { text } = q.query;
  // Nothing below the first `limit` to lift, or no words to anchor on: the best `limit` as they are.
  if (!best || !text || ranked.length <= q.limit) return ranked.slice(0, q.limit);
  let anchored: ((id: string) => boolean) | undefined;
  // The anchor costs a lexical query per word of the query: only worked out when a source is missing.
  const eligible = (i: number) => {
    anchored ??= sharesAnchor(ctx.lexical(), q.query.words(), best.entry.id);
    return anchored(ranked[i]!.entry.id);
  };
  const scores = ranked.map((r) => r.score);
  const sources = ranked.map((r) => r.entry.source?.system ?? "");
  // A question about an entity as a whole spreads over its objects too (source-spread.ts).
  const entities = [...new Set(ranked.flatMap((r) => (r.linked?.hop === 1 ? r.linked.entities : [])))];
  const objectOf = asksAbout(text, entities) ? ctx.objectOf : undefined;
  const objects = objectOf && ranked.map((r) => objectOf(r.entry.id) ?? "");
  // There only an entry naming one of the query's own entities is lifted for its object.
  const aboutIt = (i: number) => ranked[i]!.linked?.hop === 1 && eligible(i);
  const picks = objects
    ? spreadBySourceAndObject(scores, sources, objects, q.limit, { eligible, objectEligible: aboutIt })
    : spreadBySource(scores, sources, q.limit, { eligible });
  return picks.map(({ index, lifted }) => (lifted ? { ...ranked[index]!, spread: true } : ranked[index]!));
}

/**
 * MMR over the candidates. Two entries' similarity is the cosine of their vectors when both have
 * one, else the overlap of their terms (an entry still waiting for the background embedder has no
 * vector yet), clamped to [0, 1].
 */
function diversified(ranked: Ranked[], diversity: number, limit: number, ctx: ControlContext): Ranked[] {
  const vectors = new Map<number, Float32Array | undefined>();
  const terms = new Map<number, ReadonlySet<string>>();
  const vectorAt = (i: number) => {
    if (!vectors.has(i)) vectors.set(i, ctx.vectors.vectorOf(ranked[i]!.entry.id));
    return vectors.get(i);
  };
  const termsAt = (i: number) => {
    if (!terms.has(i)) terms.set(i, termSet(ranked[i]!.entry.content));
    return terms.get(i)!;
  };
  const similarity = (i: number, j: number) => {
    const [a, b] = [vectorAt(i), vectorAt(j)];
    const sim = a && b && a.length === b.length ? dotAt(a, b, 0) : termSetCosine(termsAt(i), termsAt(j));
    return Math.min(1, Math.max(0, sim));
  };
  const picks = mmr(
    ranked.map((r) => r.score),
    diversity,
    limit,
    similarity,
  );
  return picks.map(({ index, redundancy }) => ({ ...ranked[index]!, redundancy: round(redundancy) }));
}

/** `max_tokens`, then the results as answered, with `explain` when asked. */
function finish(ranked: Ranked[], q: ControlledQuery, ctx: ControlContext): ControlledResult[] {
  const c = q.controls ?? {};
  const tokens =
    c.maxTokens !== undefined || c.explain ? ranked.map((r) => estimateTokens(r.entry.content)) : [];
  const kept = c.maxTokens === undefined ? ranked : ranked.slice(0, fitsBudget(tokens, c.maxTokens));
  const lexical = c.explain && q.query.text ? ctx.lexical() : undefined;
  const ids = kept.map((r) => r.entry.id);
  const matched = lexical && matchedWordsOf(lexical, q.query.words(), ids);
  return kept.map((r, i) => {
    const result: ControlledResult = { entry: r.entry, score: r.score, scores: r.scores };
    if (!c.explain) return result;
    const explain: ResultExplain = {
      matched_terms: matched?.[i] ?? [],
      relevance: r.relevance,
      tokens: tokens[i]!,
    };
    if (r.recency !== undefined) explain.recency = r.recency;
    if (r.redundancy !== undefined) explain.redundancy = r.redundancy;
    if (r.spread) explain.source_spread = true;
    if (r.rerank) explain.rerank = r.rerank;
    if (r.time !== undefined)
      Object.assign(explain, { time_window: windowExplain(q.query.time), time: r.time });
    if (r.context !== undefined) explain.context = r.context;
    if (r.linked) Object.assign(explain, { entities: r.linked.entities, hop: r.linked.hop });
    return { ...result, explain };
  });
}

function byId(a: Ranked, b: Ranked): number {
  return a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
