/**
 * The built-in re-ranker: deterministic, no model, microseconds a candidate. It scores each of the
 * top fused hits by its fused relevance, as a share of the best candidate's, plus its **coverage**:
 * the share of the query's words it matches, in any indexed field, as the BM25 index matches them
 * (stemmed, stop words dropped). BM25 sums word scores weighed by rarity, so an entry repeating the
 * query's rarest word can beat one saying every word of it, and a name spoken in half the turns
 * ("Soren" in a conversation with Soren) weighs almost nothing; coverage counts each word alike,
 * so among candidates whose fused scores are close, the one that says the whole question wins;
 * plus a little for the **answer's shape** (answer-shape.ts): a quantity for "how much", a time for
 * "when".
 *
 * Chosen on the project's evaluation set (docs/embedding-and-search.md#a-re-ranking-stage):
 * coverage weighed by rarity, and the matched words' proximity in the content, measured no better
 * or worse, and were left out.
 */
import { type Analyzer, DEFAULT_ANALYZER } from "../../lexical/analyzer.ts";
import { matchedWordsOf, queryWords, type TermScorer } from "../../lexical/matched-terms.ts";
import { answerShape } from "./answer-shape.ts";

/** Coverage's and the answer shape's weights beside the relevance share (1). */
export const COVERAGE_WEIGHT = 0.6;
export const SHAPE_WEIGHT = 0.1;

export interface BuiltinCandidate {
  id: string;
  content: string;
  /** The fused score (after recency, when asked). */
  relevance: number;
}

/** One score per candidate, in their order: higher ranks first. */
export function builtinScores(
  index: TermScorer,
  query: string,
  candidates: readonly BuiltinCandidate[],
  analyzer: Analyzer = DEFAULT_ANALYZER,
): number[] {
  return builtinScoresOf(index, { text: query, words: queryWords(query, analyzer) }, candidates);
}

/** `builtinScores` for a query already analysed (src/search/query-analysis.ts): its text and words. */
export function builtinScoresOf(
  index: TermScorer,
  query: { text: string; words: readonly string[] },
  candidates: readonly BuiltinCandidate[],
): number[] {
  const ids = candidates.map((c) => c.id);
  const matched = matchedWordsOf(index, query.words, ids);
  const words = query.words.length;
  const best = Math.max(...candidates.map((c) => c.relevance), Number.MIN_VALUE);
  const shaped = answerShape(query.text);
  return candidates.map((c, i) => {
    const coverage = words > 0 ? matched[i]!.length / words : 0;
    const shape = shaped?.(c.content) ? SHAPE_WEIGHT : 0;
    return c.relevance / best + COVERAGE_WEIGHT * coverage + shape;
  });
}
