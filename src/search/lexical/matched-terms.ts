import { type Analyzer, DEFAULT_ANALYZER } from "./analyzer.ts";

/** What `matchedTerms` needs of the BM25 index: its scorer (lexical-index.ts). */
export interface TermScorer {
  scorer(query: string): (id: string) => number | undefined;
}

// The analyzer's notion of a word (analyzer.ts), on the raw text: numbers with separators first.
const WORD = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*/gu;

/**
 * The words of `query` the lexical index matched in document `id`, as the query wrote them (lower
 * case, each once): a word counts when the index scores the document above 0 for that word alone,
 * so whatever the index does to words (stemming, folding, which fields it indexes) applies, and
 * "paid" is reported for an entry saying "pays". Words the query's analysis drops (stop words
 * beside other words) are never reported: they did not take part in the match.
 */
export function matchedTerms(
  index: TermScorer,
  query: string,
  id: string,
  analyzer: Analyzer = DEFAULT_ANALYZER,
): string[] {
  return matchedTermsOf(index, query, [id], analyzer)[0]!;
}

/**
 * `matchedTerms` of several documents, in their order. Each word's scorer is asked of every
 * document before the next word's: the index scores one word at a time (a query over its postings),
 * so the cost is one query per word, not one per word and document.
 */
export function matchedTermsOf(
  index: TermScorer,
  query: string,
  ids: readonly string[],
  analyzer: Analyzer = DEFAULT_ANALYZER,
): string[][] {
  return matchedWordsOf(index, queryWords(query, analyzer), ids);
}

/** `matchedTermsOf` for a query whose words (`queryWords`) are already known. */
export function matchedWordsOf(
  index: TermScorer,
  words: readonly string[],
  ids: readonly string[],
): string[][] {
  const matched = ids.map((): string[] => []);
  for (const word of words) {
    const score = index.scorer(word);
    for (const [i, id] of ids.entries()) if ((score(id) ?? 0) > 0) matched[i]!.push(word);
  }
  return matched;
}

/**
 * The query's distinct words that take part in a match, as it wrote them (lower case, in order):
 * those whose terms are among the query's own (its stop words beside other words dropped, as BM25
 * drops them).
 */
export function queryWords(query: string, analyzer: Analyzer = DEFAULT_ANALYZER): string[] {
  const searched = new Set(analyzer.queryTerms(query));
  const words: string[] = [];
  const seen = new Set<string>();
  for (const raw of query.match(WORD) ?? []) {
    const word = raw.toLowerCase();
    if (seen.has(word)) continue;
    seen.add(word);
    if (analyzer.queryTerms(word).some((term) => searched.has(term))) words.push(word);
  }
  return words;
}
