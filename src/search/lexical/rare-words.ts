import { BM25_K1 } from "./lexical-index.ts";

/** What `rareWordsQuery` needs of the BM25 index (lexical-index.ts). */
export interface RarityIndex {
  /** Documents indexed. */
  readonly size: number;
  /** The best BM25 a document could reach on `query`: its words' idf × (k1 + 1). */
  ceiling(query: string): number;
}

export interface RareWordsOptions {
  /** Words looked at come from the text's opening this long. */
  chars?: number;
  /** At most this many words, the rarest. */
  words?: number;
  /**
   * A word is common, and left out, when more documents hold it than this share of them, bounded
   * below by `commonMin` (a small index keeps every word) and above by `commonMax` (a query's cost
   * stays bounded however large the index): by default 3% of the documents, within 1,000–10,000.
   */
  commonShare?: number;
  commonMin?: number;
  commonMax?: number;
}

// A word as the analyzer sees one (analyzer.ts), on the raw text: numbers with separators first.
const WORD = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}\p{M}]+(?:['\u2019][\p{L}\p{N}\p{M}]+)*/gu;

/**
 * A BM25 query made of a text's rarest words, to find the texts that repeat it at a bounded cost:
 * a query costs the length of its words' posting lists, and a near-copy shares the rare words
 * anyway. Words the index does not know, and common ones (see `commonShare`), are left out, so a
 * text of common words only makes "" (and finds nothing). At the defaults a query reads at most
 * 8 × 10,000 postings.
 *
 * A word's rarity is read from its ceiling (idf × (k1 + 1)), so no document frequency is needed:
 * a word in more than `cap` of `n` documents has an idf below ln(1 + (n − cap + 0.5) / (cap + 0.5)).
 */
export function rareWordsQuery(index: RarityIndex, text: string, opts: RareWordsOptions = {}): string {
  const n = index.size;
  const share = n * (opts.commonShare ?? 0.03);
  const cap = Math.min(opts.commonMax ?? 10_000, Math.max(opts.commonMin ?? 1000, share));
  const minCeiling = Math.log(1 + (n - cap + 0.5) / (cap + 0.5)) * (BM25_K1 + 1);
  const ceilings = new Map<string, number>();
  for (const raw of text.slice(0, opts.chars ?? 1000).match(WORD) ?? []) {
    const word = raw.toLowerCase();
    if (!ceilings.has(word)) ceilings.set(word, index.ceiling(word));
  }
  return [...ceilings]
    .filter(([, ceiling]) => ceiling > 0 && ceiling >= minCeiling)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, opts.words ?? 8)
    .map(([word]) => word)
    .join(" ");
}
