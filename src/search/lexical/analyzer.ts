import { stem } from "porter2";
import { IRREGULAR_VERBS } from "./irregular-verbs.ts";
import { STOP_WORDS } from "./stop-words.ts";

/**
 * What BM25 indexes and matches: a text's words as terms. The hash embedder keeps its own
 * tokenizer (tokenize.ts), so stored hash vectors stay valid whatever changes here; a change here
 * makes saved BM25 indexes stale, so it must bump ANALYZER_VERSION (they are then rebuilt).
 *
 * Each step was measured on the retrieval evaluation set (docs/embedding-and-search.md):
 * - Unicode: NFKC, lower case, and accents of Latin letters folded ("café" matches "cafe").
 * - Words: runs of letters, digits and marks; an apostrophe inside a word stays ("don't"), a
 *   possessive "'s" goes ("Soren's" is "soren").
 * - Numbers stay terms, never stemmed: "2,300" is "2300" (thousands separators), a decimal
 *   ("1.5") is one term, other dotted or comma'd runs (dates like 12.03.2022) split into their
 *   parts, and ordinals are their number ("3rd" is "3", so "March 3rd" matches "March 3").
 * - English words are stemmed with Porter2 (the Snowball English stemmer, npm `porter2`), after
 *   the past forms of common irregular verbs are taken to their base ("paid" is "pay").
 *   Names are stemmed like any word: both sides are, so a name always matches itself.
 *   Words with other letters than a–z after folding, or with digits ("q3"), are left as they are.
 * - Stop words (stop-words.ts) are dropped from queries only, and only when a query has other
 *   words: documents keep them, so a query made only of them ("The Who") still matches.
 */
export const ANALYZER_VERSION = 2;

export interface AnalyzerOptions {
  /** Porter2 stemming of English words (default true). */
  stem?: boolean;
  /** Irregular past forms to their base before stemming (default true). */
  irregularVerbs?: boolean;
  /** Stop words dropped from queries (default true). */
  stopWords?: boolean;
}

// A number with separators is matched first, so "2,300" and "1.5" are one match each.
const WORD = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}\p{M}]+(?:'[\p{L}\p{N}\p{M}]+)*/gu;
const NON_ASCII = /[^\x20-\x7e]/;
const LATIN_MARKS = /(?<=\p{Script=Latin})\p{M}+/gu;
const APOSTROPHES = /[\u2019\u02bc\u2018]/g;
const THOUSANDS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const DECIMAL = /^\d+\.\d+$/;
const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;
const ENGLISH = /^[a-z]+$/;
/** Longer "words" (encoded blobs, hashes) are cut: they only ever match themselves anyway. */
const MAX_TERM_CHARS = 64;
/**
 * Words seen recently and their terms: stemming dominates the cost of analysing a text, and the
 * words of a tenant's texts repeat (Zipf). Cleared when full, so it stays bounded.
 */
const TERM_CACHE_WORDS = 50_000;

export class Analyzer {
  private readonly stem: boolean;
  private readonly irregular: boolean;
  private readonly stopWords: boolean;
  private readonly cache = new Map<string, string>();

  constructor(opts: AnalyzerOptions = {}) {
    this.stem = opts.stem ?? true;
    this.irregular = opts.irregularVerbs ?? true;
    this.stopWords = opts.stopWords ?? true;
  }

  /** A document's terms, in order, repeats included (BM25 counts them). */
  documentTerms(text: string): string[] {
    const out: string[] = [];
    for (const word of words(text)) {
      // Most words hold no separator: no array for their one part.
      if (!hasSeparator(word)) out.push(this.cachedTerm(word));
      else for (const part of splitNumber(word)) out.push(this.cachedTerm(part));
    }
    return out;
  }

  /** A query's distinct terms: without stop words, unless nothing else is left. */
  queryTerms(text: string): string[] {
    const all: string[] = [];
    const kept: string[] = [];
    for (const word of words(text)) {
      for (const part of splitNumber(word)) {
        const term = this.cachedTerm(part);
        all.push(term);
        if (!this.stopWords || !STOP_WORDS.has(part)) kept.push(term);
      }
    }
    return [...new Set(kept.length > 0 ? kept : all)];
  }

  /** How terms are made, for a saved index to tell whether it is stale. */
  get signature(): string {
    return `analyzer ${ANALYZER_VERSION} stem=${this.stem} irregular=${this.irregular}`;
  }

  private cachedTerm(word: string): string {
    let term = this.cache.get(word);
    if (term === undefined) {
      term = this.term(word);
      if (this.cache.size >= TERM_CACHE_WORDS) this.cache.clear();
      this.cache.set(word, term);
    }
    return term;
  }

  /** One word as a term (`word` is lower case, folded, possessive gone, number parts split). */
  private term(word: string): string {
    if (word.length > MAX_TERM_CHARS) return word.slice(0, MAX_TERM_CHARS);
    const ordinal = ORDINAL.exec(word);
    if (ordinal) return ordinal[1]!;
    if (word.includes("'")) return this.term(word.replaceAll("'", ""));
    if (!ENGLISH.test(word)) return word;
    const base = (this.irregular && IRREGULAR_VERBS.get(word)) || word;
    return this.stem ? stem(base) : base;
  }
}

/** Lower-case, folded words; a possessive "'s" is removed, other apostrophes kept for the stop list. */
function words(text: string): string[] {
  const matched = normalise(text).match(WORD) ?? [];
  for (let i = 0; i < matched.length; i++) {
    const w = matched[i]!;
    if (w.endsWith("'s")) matched[i] = w.slice(0, -2);
  }
  return matched;
}

function normalise(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  // NFKD splits accents from their letters (and maps compatibility forms); only Latin letters lose
  // theirs: in other scripts (Devanagari, say) the marks are part of the letter.
  return text
    .normalize("NFKD")
    .replace(LATIN_MARKS, "")
    .normalize("NFC")
    .replace(APOSTROPHES, "'")
    .toLowerCase();
}

/** "2,300" → 2300; "1.5" stays; "12.03.2022" → 12, 03, 2022. Words pass through. */
function splitNumber(word: string): string[] {
  if (!hasSeparator(word)) return [word];
  if (THOUSANDS.test(word)) return [word.replaceAll(",", "")];
  if (DECIMAL.test(word)) return [word];
  return word.split(/[.,]/);
}

function hasSeparator(word: string): boolean {
  return word.includes(",") || word.includes(".");
}

/** The analyzer the service uses. */
export const DEFAULT_ANALYZER = new Analyzer();
