/**
 * The built-in re-ranker: deterministic, no model, microseconds a candidate. It scores each of the
 * top fused hits by what the fusion does not weigh:
 *
 * - **coverage**: the share of the query's words the entry matches (in any indexed field, as the
 *   BM25 index matches them), each word weighed by its rarity (its BM25 ceiling). BM25 sums word
 *   scores, so one rare word said twice can beat an entry saying every word once; coverage
 *   prefers the entry that says all of them;
 * - **proximity**: how close together the matched words stand in the content (the smallest
 *   window holding all of them): "Soren … paid … guitar" in one clause rather than across a story;
 * - the fused **relevance** itself, as a share of the best candidate's, so the stage only
 *   re-orders among candidates whose fused scores are close.
 *
 * The weights were chosen on the project's evaluation set (docs/embedding-and-search.md#a-re-ranking-stage).
 */
import { type Analyzer, DEFAULT_ANALYZER } from "../../embedding/analyzer.ts";
import { matchedTermsOf } from "../../embedding/matched-terms.ts";
import type { AnchorIndex } from "../../embedding/source-spread.ts";

export const BUILTIN_WEIGHTS = { relevance: 1, coverage: 0.3, proximity: 0.1 } as const;

export interface BuiltinCandidate {
  id: string;
  content: string;
  /** The fused score (after recency, when asked). */
  relevance: number;
}

/** One score per candidate, in their order: higher ranks first. */
export function builtinScores(
  index: AnchorIndex,
  query: string,
  candidates: readonly BuiltinCandidate[],
  weights: { relevance: number; coverage: number; proximity: number } = BUILTIN_WEIGHTS,
  analyzer: Analyzer = DEFAULT_ANALYZER,
): number[] {
  const matched = matchedTermsOf(
    index,
    query,
    candidates.map((c) => c.id),
    analyzer,
  );
  const weightOf = new Map<string, number>();
  const weight = (word: string) => {
    const known = weightOf.get(word);
    if (known !== undefined) return known;
    const w = index.ceiling(word);
    weightOf.set(word, w);
    return w;
  };
  const total = queryWords(query, analyzer).reduce((sum, word) => sum + weight(word), 0);
  const best = Math.max(...candidates.map((c) => c.relevance), Number.MIN_VALUE);
  return candidates.map((c, i) => {
    const words = matched[i]!;
    const coverage = total > 0 ? words.reduce((sum, word) => sum + weight(word), 0) / total : 0;
    const proximity = words.length > 1 ? proximityOf(c.content, words, analyzer) : 0;
    return (
      weights.relevance * (c.relevance / best) + weights.coverage * coverage + weights.proximity * proximity
    );
  });
}

/** The query's distinct words that take part in a match (its stop words dropped, as BM25 drops them). */
function queryWords(query: string, analyzer: Analyzer): string[] {
  const everything = { scorer: () => () => 1 };
  return matchedTermsOf(everything, query, [""], analyzer)[0]!;
}

/**
 * How close the matched words stand in `content`: (found − 1) / (span − 1) for the smallest window
 * of its terms holding every matched word found there (1: side by side; 0: fewer than two found).
 */
export function proximityOf(
  content: string,
  words: readonly string[],
  analyzer: Analyzer = DEFAULT_ANALYZER,
): number {
  const wanted = new Map<string, number>();
  for (const word of words) for (const term of analyzer.queryTerms(word)) wanted.set(term, wanted.size);
  const terms = analyzer.documentTerms(content);
  const present = new Set(terms.filter((t) => wanted.has(t)));
  if (present.size < 2) return 0;
  // The smallest window holding one of each present term: two pointers over the positions.
  const counts = new Map<string, number>();
  let inside = 0;
  let span = Number.POSITIVE_INFINITY;
  let start = 0;
  for (let end = 0; end < terms.length; end++) {
    const term = terms[end]!;
    if (!present.has(term)) continue;
    counts.set(term, (counts.get(term) ?? 0) + 1);
    if (counts.get(term) === 1) inside++;
    while (inside === present.size) {
      const first = terms[start]!;
      if (present.has(first)) {
        span = Math.min(span, end - start + 1);
        const left = counts.get(first)! - 1;
        counts.set(first, left);
        if (left === 0) inside--;
      }
      start++;
    }
  }
  return (present.size - 1) / (span - 1);
}
