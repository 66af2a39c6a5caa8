/**
 * The one tokenizer shared by the hash embedder and BM25, so that both sides of a hybrid search
 * agree on what a word is.
 *
 * A word is a run of Unicode letters, digits and combining marks (marks are kept inside words so
 * scripts such as Devanagari or decomposed accents are not cut apart). Text is NFKC-normalised
 * first, so full-width and compatibility forms ("ｆｏｏ", "ﬁ") match their plain spellings.
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

// Pure printable ASCII is already NFKC; skipping `normalize` keeps the common case cheap.
const NON_ASCII = /[^\x20-\x7e]/;

export function tokenize(text: string): string[] {
  const normalised = NON_ASCII.test(text) ? text.normalize("NFKC") : text;
  return normalised.toLowerCase().match(WORD) ?? [];
}
