/**
 * A search's query analysed once: whether it has text, whether that text has a word the indexes
 * can match, the time it speaks of, and the words that take part in a lexical match. The tenant's
 * search (actors/tenant/memory/search.ts) builds it once and hands it to the fused search and to
 * every control after it, which read it instead of analysing the text again.
 */
import { tokenize } from "../embedding/tokenize.ts";
import { queryTime } from "./controls/time/query-time.ts";
import type { TimeReading } from "./controls/time/time-expressions.ts";
import { queryWords } from "./lexical/matched-terms.ts";

/**
 * The query's text when it has any (not absent, not only white space), as written: the one answer
 * to "is there text?", on the service side too (the query vector, the metrics' mode, re-ranking).
 */
export function queryText(text: string | undefined): string | undefined {
  return text?.trim() ? text : undefined;
}

/** The text when it holds a word either index can match (tokenize.ts), else undefined. */
export function lexicalText(text: string | undefined): string | undefined {
  return text && tokenize(text).length > 0 ? text : undefined;
}

export interface QueryAnalysis {
  /** The query's text, when it has any (`queryText`). */
  readonly text?: string;
  /** The text BM25 searches: `text` when it holds a word (`lexicalText`). */
  readonly lexical?: string;
  /** The time the query speaks of (src/search/controls/time/): its window, whether it asks about the past. */
  readonly time: TimeReading;
  /**
   * The query's distinct words that take part in a lexical match (matched-terms.ts: stop words
   * beside other words dropped), worked out on first use: the source spread's anchor, the built-in
   * re-ranker's coverage and `explain`'s matched terms all read it.
   */
  words(): readonly string[];
}

/** What the analysis reads of a search: its text, the instant its time words are read against. */
export interface AnalysedSearch {
  text?: string;
  validAt: number;
  controls?: { timeExpressions?: false };
}

export function analyseQuery(search: AnalysedSearch): QueryAnalysis {
  const text = queryText(search.text);
  const time = queryTime(text, search.validAt, search.controls?.timeExpressions);
  let words: readonly string[] | undefined;
  return {
    text,
    lexical: lexicalText(text),
    time,
    words: () => {
      words ??= text ? queryWords(text) : [];
      return words;
    },
  };
}
