/**
 * The re-ranking stage inside the tenant's search (actors/tenant/memory/search-controls.ts): it
 * orders the top `top` of the ranked pool (after the filters, recency and `min_score`, before the
 * page is chosen) and leaves the rest where it was. Which entries are in the pool never changes.
 *
 * A re-ranked entry takes the score of the place it moves to (the pool's scores, in their order),
 * so scores stay in descending order and what chooses the page after it (the source spread,
 * diversity, `max_tokens`) reads the new order; its own fused score stays in `explain.relevance`,
 * the re-ranker's in `explain.rerank.score`.
 */

import type { Entry } from "../../../models/entry.ts";
import type { RerankExplain } from "../../../models/rerank.ts";
import type { TermScorer } from "../../lexical/matched-terms.ts";
import { builtinScoresOf } from "./builtin.ts";
import type { RerankAsk } from "./reranker.ts";

/** What the stage reads and writes of a ranked result. */
export interface Rerankable {
  entry: Entry;
  relevance: number;
  score: number;
  rerank?: RerankExplain;
}

/** The ranked pool re-ordered as `ask` says (`collect`: its top as it is, for a service to score). */
export function reranked<T extends Rerankable>(
  ranked: readonly T[],
  ask: RerankAsk,
  query: { text?: string; words(): readonly string[] },
  lexical: () => TermScorer,
): T[] {
  const top = ranked.slice(0, ask.top);
  if ("collect" in ask) return top;
  const rest = ranked.slice(ask.top);
  if ("fallback" in ask)
    return [
      ...top.map((r, i) => ({ ...r, rerank: { by: ask.by, rank_before: i + 1, fallback: ask.fallback } })),
      ...rest,
    ];
  const scores =
    "scores" in ask
      ? top.map((r) => ask.scores[r.entry.id])
      : query.text
        ? builtinScoresOf(lexical(), { text: query.text, words: query.words() }, top.map(candidateOf))
        : top.map(() => undefined);
  return [...placed(top, scores, ask.by), ...rest];
}

const candidateOf = (r: Rerankable) => ({ id: r.entry.id, relevance: r.score, content: r.entry.content });

/**
 * `top` ordered by score (ties and unscored entries, e.g. written between a service's two asks,
 * keep their order, after the scored ones), each given the score of its new place.
 */
function placed<T extends Rerankable>(
  top: readonly T[],
  scores: ReadonlyArray<number | undefined>,
  by: RerankExplain["by"],
): T[] {
  const order = top
    .map((_, i) => i)
    .sort((a, b) => {
      const [sa, sb] = [scores[a], scores[b]];
      if (sa === undefined || sb === undefined) return sa === sb ? a - b : sa === undefined ? 1 : -1;
      return sb - sa || a - b;
    });
  return order.map((i, place) => {
    const score = scores[i];
    const rerank: RerankExplain = { by, rank_before: i + 1 };
    if (score !== undefined) rerank.score = Math.round(score * 1e4) / 1e4;
    return { ...top[i]!, score: top[place]!.score, rerank };
  });
}
