/**
 * The baseline: plain Okapi BM25 (k1 = 1.2, b = 0.75) over lower-case word tokens, no stemming and
 * no stop words, written here on purpose instead of reusing the service's lexical index, so the
 * service is compared with a textbook reference rather than with itself.
 */
export const tokenize = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export interface Scored {
  id: string;
  score: number;
}

export class Bm25 {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    documents: readonly { id: string; text: string }[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = documents.map(({ id, text }) => {
      const tf = new Map<string, number>();
      const tokens = tokenize(text);
      for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return { id, tf, length: tokens.length };
    });
    this.avgLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** Lucene's non-negative idf. */
  private idf(term: string): number {
    const n = this.df.get(term) ?? 0;
    return Math.log(1 + (this.docs.length - n + 0.5) / (n + 0.5));
  }

  /** The best `limit` documents with a score above 0; ties keep the documents' order. */
  search(query: string, limit: number): Scored[] {
    const terms = [...new Set(tokenize(query))].filter((t) => this.df.has(t));
    const scored: Scored[] = [];
    for (const doc of this.docs) {
      let score = 0;
      for (const term of terms) {
        const f = doc.tf.get(term);
        if (!f) continue;
        const norm = this.k1 * (1 - this.b + (this.b * doc.length) / this.avgLength);
        score += (this.idf(term) * f * (this.k1 + 1)) / (f + norm);
      }
      if (score > 0) scored.push({ id: doc.id, score });
    }
    return scored.sort((x, y) => y.score - x.score).slice(0, limit);
  }
}
