import { type Analyzer, DEFAULT_ANALYZER } from "./analyzer.ts";

/**
 * A text's distinct terms as BM25 queries see them (analyzer.ts: stemmed, numbers kept, stop words
 * dropped unless nothing else is left), for comparing two texts without an index: near-duplicates
 * on write and the lexical fallback of diversity (MMR) when an entry has no vector yet.
 */
export function termSet(text: string, analyzer: Analyzer = DEFAULT_ANALYZER): ReadonlySet<string> {
  return new Set(analyzer.queryTerms(text));
}

/**
 * Cosine similarity of two term sets taken as binary vectors: shared terms / √(|a| × |b|), in
 * [0, 1]; 0 when either is empty. Unlike Jaccard it does not punish a text for being a longer
 * restatement: one extra word in six costs 0.07, one word changed in six 0.17.
 */
export function termSetCosine(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const term of small) if (large.has(term)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}
