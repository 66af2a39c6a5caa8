import { byScoreThenId, type Hit } from "./hit.ts";
import { tokenize } from "./tokenize.ts";
import { TopK } from "./top-k.ts";

const K1 = 1.2;
const B = 0.75;
const LEXICAL_MAGIC = 0x584c4d54; // "TMLX"
const LEXICAL_VERSION = 1;
const HEADER_BYTES = 24;
/** Entry ids are 8 hex characters. */
const ID_BYTES = 8;

/**
 * One term's postings as (document number, term count) pairs interleaved in one typed array:
 * one object per term, not two, because most terms of real text are rare (names, ids, codes)
 * and per-array overhead, not the postings, dominates their memory. Document numbers ascend
 * (documents are only appended).
 */
class Postings {
  pairs = new Uint32Array(2);
  length = 0;

  append(doc: number, tf: number): void {
    if (2 * this.length === this.pairs.length) this.grow();
    this.pairs[2 * this.length] = doc;
    this.pairs[2 * this.length + 1] = tf;
    this.length++;
  }

  /** The count of `doc` in this term, by binary search, or 0. */
  tfOf(doc: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = this.pairs[2 * mid]!;
      if (d === doc) return this.pairs[2 * mid + 1]!;
      if (d < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  private grow(): void {
    const pairs = new Uint32Array(this.pairs.length * 2);
    pairs.set(this.pairs);
    this.pairs = pairs;
  }
}

interface QueryTerm {
  postings: Postings;
  idf: number;
}

/**
 * An in-memory BM25 (k1 = 1.2, b = 0.75) inverted index over entry texts, rebuilt from the
 * vault when a tenant's actor starts. Scores are raw BM25 (unbounded); `fuse` normalises them.
 *
 * A query reuses one score accumulator sized to the corpus (grown, never reallocated per query),
 * so its cost is the length of the posting lists it touches plus O(k) for the result.
 * Repeated query words count once. Documents are never removed (entries expire instead; the
 * caller filters them with `accept`), and adding an id already present is a no-op, because ids
 * are content hashes: the same id means the same text.
 */
export class LexicalIndex {
  private readonly terms = new Map<string, Postings>();
  private readonly ids: string[] = [];
  private readonly docOf = new Map<string, number>();
  private docLengths = new Uint32Array(1024);
  private totalLength = 0;
  private scores = new Float64Array(1024);
  private touched = new Uint32Array(1024);

  get size(): number {
    return this.ids.length;
  }

  /**
   * The index as bytes, so a restart loads it instead of decoding every entry again:
   *   magic, version, docs, terms (u32 LE), total length (f64 LE),
   *   ids (8 ASCII bytes each), document lengths (u32 each),
   *   per term: UTF-8 length (u16), UTF-8 bytes, postings (u32), then (doc, tf) pairs (u32 each).
   */
  toBytes(): Uint8Array {
    const terms = [...this.terms].map(([term, postings]) => [Buffer.from(term, "utf8"), postings] as const);
    const docs = this.ids.length;
    if (this.ids.some((id) => id.length !== ID_BYTES)) throw new Error("only 8-character ids can be saved");
    let size = HEADER_BYTES + docs * (ID_BYTES + 4);
    for (const [bytes, postings] of terms) size += 2 + bytes.length + 4 + postings.length * 8;
    const out = Buffer.alloc(size);
    let at = out.writeUInt32LE(LEXICAL_MAGIC, 0);
    at = out.writeUInt32LE(LEXICAL_VERSION, at);
    at = out.writeUInt32LE(docs, at);
    at = out.writeUInt32LE(terms.length, at);
    at = out.writeDoubleLE(this.totalLength, at);
    for (const id of this.ids) at += out.write(id, at, ID_BYTES, "latin1");
    for (let doc = 0; doc < docs; doc++) at = out.writeUInt32LE(this.docLengths[doc]!, at);
    for (const [bytes, postings] of terms) {
      at = out.writeUInt16LE(bytes.length, at);
      at += bytes.copy(out, at);
      at = out.writeUInt32LE(postings.length, at);
      for (let i = 0; i < postings.length * 2; i++) at = out.writeUInt32LE(postings.pairs[i]!, at);
    }
    return out;
  }

  /** An index read back from `toBytes`; throws on bytes of another format. */
  static fromBytes(bytes: Uint8Array): LexicalIndex {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (
      buf.byteLength < HEADER_BYTES ||
      buf.readUInt32LE(0) !== LEXICAL_MAGIC ||
      buf.readUInt32LE(4) !== LEXICAL_VERSION
    )
      throw new Error("not a lexical index of this version");
    const index = new LexicalIndex();
    const docs = buf.readUInt32LE(8);
    const termCount = buf.readUInt32LE(12);
    index.totalLength = buf.readDoubleLE(16);
    let at = HEADER_BYTES;
    index.ensureCapacity(docs);
    for (let doc = 0; doc < docs; doc++, at += ID_BYTES) {
      const id = buf.toString("latin1", at, at + ID_BYTES);
      index.ids.push(id);
      index.docOf.set(id, doc);
    }
    for (let doc = 0; doc < docs; doc++, at += 4) index.docLengths[doc] = buf.readUInt32LE(at);
    for (let t = 0; t < termCount; t++) {
      const length = buf.readUInt16LE(at);
      const term = buf.toString("utf8", at + 2, at + 2 + length);
      at += 2 + length;
      const count = buf.readUInt32LE(at);
      at += 4;
      const postings = new Postings();
      postings.pairs = new Uint32Array(Math.max(2, count * 2));
      for (let i = 0; i < count * 2; i++, at += 4) postings.pairs[i] = buf.readUInt32LE(at);
      postings.length = count;
      index.terms.set(term, postings);
    }
    if (at !== buf.byteLength) throw new Error("a lexical index file of the wrong length");
    return index;
  }

  has(id: string): boolean {
    return this.docOf.has(id);
  }

  /** Indexes `text` under `id`; returns false when the id was already indexed. */
  add(id: string, text: string): boolean {
    if (this.docOf.has(id)) return false;
    const doc = this.ids.length;
    const tokens = tokenize(text);
    for (const [term, tf] of termCounts(tokens)) this.postingsOf(term).append(doc, tf);
    const length = tokens.length;
    this.ensureCapacity(doc + 1);
    this.docLengths[doc] = length;
    this.totalLength += length;
    this.ids.push(id);
    this.docOf.set(id, doc);
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

  private queryTerms(query: string): QueryTerm[] {
    const n = this.ids.length;
    const out: QueryTerm[] = [];
    for (const term of new Set(tokenize(query))) {
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
    for (const { postings, idf } of terms) {
      const { pairs } = postings;
      const idfK1 = idf * (K1 + 1);
      for (let i = 0; i < 2 * postings.length; i += 2) {
        const doc = pairs[i]!;
        const tf = pairs[i + 1]!;
        const norm = K1 * (1 - B + (B * this.docLengths[doc]!) / avgLength);
        if (this.scores[doc] === 0) this.touched[touchedCount++] = doc;
        this.scores[doc] = this.scores[doc]! + (idfK1 * tf) / (tf + norm);
      }
    }
    return touchedCount;
  }

  private termScore(idf: number, tf: number, doc: number): number {
    if (tf === 0) return 0;
    const avgLength = this.totalLength / Math.max(1, this.ids.length) || 1;
    const norm = K1 * (1 - B + (B * this.docLengths[doc]!) / avgLength);
    return (idf * (K1 + 1) * tf) / (tf + norm);
  }

  private postingsOf(term: string): Postings {
    let postings = this.terms.get(term);
    if (!postings) {
      postings = new Postings();
      this.terms.set(term, postings);
    }
    return postings;
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

function termCounts(tokens: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
