import { type Analyzer, DEFAULT_ANALYZER } from "./analyzer.ts";
import { byScoreThenId, type Hit } from "./hit.ts";
import { type LexicalState, lexicalBytes, lexicalState } from "./lexical-file.ts";
import { Postings, TF_UNITS } from "./lexical-postings.ts";
import { TopK } from "./top-k.ts";

/**
 * BM25's parameters, chosen on the retrieval evaluation set (docs/embedding-and-search.md): k1
 * (how fast repeats of a word saturate) is the textbook 1.2, which measured as well as any from
 * 0.6 to 2. b (how much longer documents are discounted) is 0.3, not the textbook 0.75: notes and
 * turns that carry facts are longer than chatter ("Oh nice!"), and a strong length discount ranks
 * short chatter sharing one word above them. Lower measured better still (0 best), but b = 0
 * lets a long text that mentions everything win everywhere, and the set's generated turns may
 * exaggerate the pattern: 0.3 takes most of the gain.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.3;

/** One field of a document: its text, and how much one of its words counts (default 1). */
export interface LexicalField {
  text: string;
  weight?: number;
}

/** A document: plain text (one field of weight 1), or weighted fields. */
export type LexicalDocument = string | readonly LexicalField[];

export interface LexicalIndexOptions {
  analyzer?: Analyzer;
  k1?: number;
  b?: number;
  /**
   * Names how the caller makes documents (its fields and their weights): saved with the index, so
   * bytes saved under another scheme are refused and the index is rebuilt.
   */
  scheme?: string;
}

interface QueryTerm {
  postings: Postings;
  idf: number;
}

/**
 * An in-memory BM25F inverted index over entry texts, rebuilt from the vault when a tenant's actor
 * starts (or read back from its saved bytes). Scores are raw BM25 (unbounded); `fuse` normalises them.
 * Words are terms as the analyzer makes them (stemmed, numbers kept; analyzer.ts). A document may
 * have weighted fields: a word's count is the sum of its fields' weights, and so is the document's
 * length (BM25F with one length normalisation), so a word in a field of weight 2 counts as two.
 *
 * A query reuses one score accumulator sized to the corpus (grown, never reallocated per query),
 * so its cost is the length of the posting lists it touches plus O(k) for the result.
 * Repeated query words count once. Documents are never removed (entries expire instead; the
 * caller filters them with `accept`), and adding an id already present is a no-op, because ids
 * are content hashes: the same id means the same text.
 */
export class LexicalIndex {
  private readonly analyzer: Analyzer;
  private readonly k1: number;
  private readonly b: number;
  private readonly signature: string;
  private terms = new Map<string, Postings>();
  private ids: string[] = [];
  private readonly docOf = new Map<string, number>();
  private docLengths: Uint32Array = new Uint32Array(1024);
  private totalLength = 0;
  private scores = new Float64Array(1024);
  private touched = new Uint32Array(1024);

  constructor(opts: LexicalIndexOptions = {}) {
    this.analyzer = opts.analyzer ?? DEFAULT_ANALYZER;
    this.k1 = opts.k1 ?? BM25_K1;
    this.b = opts.b ?? BM25_B;
    this.signature = `${this.analyzer.signature}; ${opts.scheme ?? "text"}`;
  }

  get size(): number {
    return this.ids.length;
  }

  /** The index as bytes (lexical-file.ts), so a restart loads it instead of analysing every entry. */
  toBytes(): Uint8Array {
    const { terms, ids, docLengths, totalLength } = this;
    return lexicalBytes({ terms, ids, docLengths, totalLength }, this.signature);
  }

  /** An index read back from `toBytes`; throws on bytes of another format, analyzer or scheme. */
  static fromBytes(bytes: Uint8Array, opts: LexicalIndexOptions = {}): LexicalIndex {
    const index = new LexicalIndex(opts);
    index.restore(lexicalState(bytes, index.signature));
    return index;
  }

  has(id: string): boolean {
    return this.docOf.has(id);
  }

  /** Indexes `doc` under `id`; returns false when the id was already indexed. */
  add(id: string, doc: LexicalDocument): boolean {
    if (this.docOf.has(id)) return false;
    const number = this.ids.length;
    const { counts, length } = this.weightedCounts(doc);
    for (const [term, tf] of counts) this.postingsOf(term).append(number, tf);
    this.ensureCapacity(number + 1);
    this.docLengths[number] = length;
    this.totalLength += length;
    this.ids.push(id);
    this.docOf.set(id, number);
    return true;
  }

  /** The `k` best documents for `query`, best first; `accept` is asked only of contenders. */
  search(query: string, k: number, accept?: (id: string) => boolean): Hit[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || k <= 0) return [];
    const touchedCount = this.accumulate(terms);
    const top = new TopK(k);
    try {
      for (let i = 0; i < touchedCount; i++) {
        const doc = this.touched[i]!;
        const score = this.scores[doc]!;
        if (top.admits(score) && (!accept || accept(this.ids[doc]!))) top.push(score, doc);
      }
    } finally {
      // The accumulator is shared by all queries: it must be clean even if `accept` threw.
      for (let i = 0; i < touchedCount; i++) this.scores[this.touched[i]!] = 0;
    }
    return top
      .drain()
      .map(({ score, ref }) => ({ id: this.ids[ref]!, score }))
      .sort(byScoreThenId);
  }

  /**
   * A scorer for one query: the BM25 of any indexed id (0 when it shares no word, undefined when
   * unknown), at O(query words × log postings) per id. Lets hybrid search give documents that
   * only the vector side found their real lexical score.
   */
  scorer(query: string): (id: string) => number | undefined {
    const terms = this.queryTerms(query);
    return (id) => {
      const doc = this.docOf.get(id);
      if (doc === undefined) return undefined;
      let score = 0;
      for (const term of terms) score += this.termScore(term.idf, term.postings.tfOf(doc), doc);
      return score;
    };
  }

  /**
   * The best BM25 a document could reach on `query`: each known query word's idf × (k1 + 1), the
   * limit of a word's score as its count grows. Fusion divides by it to put BM25 on a scale that
   * does not depend on which candidates happened to be found.
   */
  ceiling(query: string): number {
    let sum = 0;
    for (const term of this.queryTerms(query)) sum += term.idf * (this.k1 + 1);
    return sum;
  }

  private queryTerms(query: string): QueryTerm[] {
    const n = this.ids.length;
    const out: QueryTerm[] = [];
    for (const term of this.analyzer.queryTerms(query)) {
      const postings = this.terms.get(term);
      if (!postings) continue;
      // Lucene's idf: never negative, so a very common word still counts a little.
      const idf = Math.log(1 + (n - postings.length + 0.5) / (postings.length + 0.5));
      out.push({ postings, idf });
    }
    return out;
  }

  /** Adds every term's contribution into `scores`; returns how many documents it touched. */
  private accumulate(terms: QueryTerm[]): number {
    let touchedCount = 0;
    const avgLength = this.totalLength / Math.max(1, this.ids.length) || 1;
    const { k1, b } = this;
    for (const { postings, idf } of terms) {
      const { pairs } = postings;
      const idfK1 = idf * (k1 + 1);
      for (let i = 0; i < 2 * postings.length; i += 2) {
        const doc = pairs[i]!;
        const tf = pairs[i + 1]! / TF_UNITS;
        const norm = k1 * (1 - b + (b * this.docLengths[doc]!) / avgLength);
        if (this.scores[doc] === 0) this.touched[touchedCount++] = doc;
        this.scores[doc] = this.scores[doc]! + (idfK1 * tf) / (tf + norm);
      }
    }
    return touchedCount;
  }

  private termScore(idf: number, units: number, doc: number): number {
    if (units === 0) return 0;
    const tf = units / TF_UNITS;
    const avgLength = this.totalLength / Math.max(1, this.ids.length) || 1;
    const norm = this.k1 * (1 - this.b + (this.b * this.docLengths[doc]!) / avgLength);
    return (idf * (this.k1 + 1) * tf) / (tf + norm);
  }

  /** Each term's count over the fields, weighted, and the weighted length, in TF_UNITS. */
  private weightedCounts(doc: LexicalDocument): { counts: Map<string, number>; length: number } {
    const fields = typeof doc === "string" ? [{ text: doc }] : doc;
    const counts = new Map<string, number>();
    let length = 0;
    for (const { text, weight = 1 } of fields) {
      const units = Math.round(Math.max(0, weight) * TF_UNITS);
      if (units === 0) continue;
      for (const term of this.analyzer.documentTerms(text)) {
        counts.set(term, (counts.get(term) ?? 0) + units);
        length += units;
      }
    }
    return { counts, length };
  }

  private postingsOf(term: string): Postings {
    let postings = this.terms.get(term);
    if (!postings) {
      postings = new Postings();
      this.terms.set(term, postings);
    }
    return postings;
  }

  private restore(state: LexicalState): void {
    this.terms = state.terms;
    this.ids = state.ids;
    for (const [doc, id] of state.ids.entries()) this.docOf.set(id, doc);
    this.docLengths = state.docLengths;
    this.totalLength = state.totalLength;
    this.scores = new Float64Array(state.docLengths.length);
    this.touched = new Uint32Array(state.docLengths.length);
  }

  private ensureCapacity(docs: number): void {
    if (docs <= this.docLengths.length) return;
    const capacity = Math.max(docs, this.docLengths.length * 2);
    const lengths = new Uint32Array(capacity);
    lengths.set(this.docLengths);
    this.docLengths = lengths;
    this.scores = new Float64Array(capacity);
    this.touched = new Uint32Array(capacity);
  }
}
