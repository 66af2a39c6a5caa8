import { byScoreThenId, type Hit } from "../hit.ts";
import { TopK } from "../top-k.ts";
import { type Analyzer, DEFAULT_ANALYZER } from "./analyzer.ts";
import { DocIds } from "./doc-ids.ts";
import { type LexicalStamp, type LexicalState, lexicalBytes, lexicalState } from "./lexical-file.ts";
import { JournalBuffer, type Segment } from "./lexical-journal.ts";
import { PostingLists, SLOT_BYTES, TF_UNITS } from "./lexical-postings.ts";

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

/**
 * Length normalisations are read from a table for documents up to this weighted length (256 words
 * of weight 1): one division less per posting. The table holds the very values the formula gives,
 * so scores do not change; it is filled again when the average length moved.
 */
const NORM_TABLE = 4096;

interface QueryTerm {
  term: number;
  idf: number;
}

/**
 * An in-memory BM25F inverted index over entry texts, kept current as entries are written and saved
 * (lexical-file.ts, lexical-journal.ts) so a restart reads it back instead of analysing every
 * entry. Scores are raw BM25 (unbounded); `fuse` normalises them. Words are terms as the analyzer
 * makes them (stemmed, numbers kept; analyzer.ts). A document may have weighted fields: a word's
 * count is the sum of its fields' weights, and so is the document's length (BM25F with one length
 * normalisation), so a word in a field of weight 2 counts as two.
 *
 * Memory: terms are numbered (one Map from word to number), postings are varint-delta bytes per
 * term (lexical-postings.ts), ids are u32 (doc-ids.ts), lengths a Uint32Array: about 2 bytes a
 * posting and 30 bytes a document besides.
 *
 * A query accumulates every matching document's score into one accumulator sized to the corpus
 * (grown, never reallocated per query), so its cost is the length of the posting lists it touches
 * plus O(k) for the result. The accumulator keeps the last query's scores until the next query, so
 * `scorer` of the query just searched answers any document in O(1). Repeated query words count
 * once. Documents are never removed (entries expire instead; the caller filters them with
 * `accept`), and adding an id already present is a no-op, because ids are content hashes: the same
 * id means the same text.
 */
export class LexicalIndex {
  private readonly analyzer: Analyzer;
  private readonly k1: number;
  private readonly b: number;
  private readonly signature: string;
  private terms = new Map<string, number>();
  private termNames: string[] = [];
  private postings = new PostingLists();
  private ids = new DocIds();
  private docLengths: Uint32Array = new Uint32Array(1024);
  private totalLength = 0;
  private scores = new Float64Array(1024);
  private touched = new Uint32Array(1024);
  private touchedCount = 0;
  /** The query whose scores the accumulator holds, and the corpus size they were computed at. */
  private accumulated: { query: string; size: number; terms: QueryTerm[] } | undefined;
  /** `norms[length]` = k1 × (1 − b + b × length / average), for the average `normsAverage`. */
  private readonly norms = new Float64Array(NORM_TABLE);
  private normsAverage = Number.NaN;
  /** Documents added since the last save, encoded for the journal (none unless `journal` was called). */
  private journalBuffer: JournalBuffer | undefined;

  constructor(opts: LexicalIndexOptions = {}) {
    this.analyzer = opts.analyzer ?? DEFAULT_ANALYZER;
    this.k1 = opts.k1 ?? BM25_K1;
    this.b = opts.b ?? BM25_B;
    this.signature = `${this.analyzer.signature}; ${opts.scheme ?? "text"}`;
  }

  get size(): number {
    return this.ids.size;
  }

  /** The index as bytes (lexical-file.ts), so a restart loads it instead of analysing every entry. */
  toBytes(stamp: LexicalStamp = { epoch: 0, watermark: 0 }): Uint8Array {
    const { terms, termNames, postings, ids, docLengths, totalLength } = this;
    return lexicalBytes({ terms, termNames, postings, ids, docLengths, totalLength }, this.signature, stamp);
  }

  /** An index read back from `toBytes`; throws on bytes of another format, analyzer or scheme. */
  static fromBytes(bytes: Uint8Array, opts: LexicalIndexOptions = {}): LexicalIndex {
    return LexicalIndex.read(bytes, opts).index;
  }

  /** `fromBytes`, with the stamp the bytes were saved with (watermark -1: a file of format 2, unstamped). */
  static read(
    bytes: Uint8Array,
    opts: LexicalIndexOptions = {},
  ): { index: LexicalIndex; stamp: LexicalStamp } {
    const index = new LexicalIndex(opts);
    const { epoch, watermark, ...state } = lexicalState(bytes, index.signature);
    index.restore(state);
    return { index, stamp: { epoch, watermark } };
  }

  /**
   * From now on every document added is also encoded for the journal; `takeJournal` hands the
   * segment out. Starting anew drops what was pending (the caller saved the whole index instead).
   */
  journal(): JournalBuffer {
    this.journalBuffer = new JournalBuffer(this.size, this.termNames.length);
    return this.journalBuffer;
  }

  /** Documents added since the journal was last taken. */
  get journalPending(): number {
    return this.journalBuffer?.pendingDocs ?? 0;
  }

  /** The journal segment of the documents added since the last one (lexical-journal.ts). */
  takeJournal(epoch: number, watermark: number): Uint8Array | undefined {
    if (!this.journalBuffer || this.journalBuffer.pendingDocs === 0) return undefined;
    return this.journalBuffer.take(epoch, watermark);
  }

  /**
   * Adds a journal segment's documents (already analysed). False when the segment does not start
   * where the index ends (a stale journal): nothing of it is added, and the caller catches up from
   * the vault instead.
   */
  replay(segment: Segment): boolean {
    if (segment.firstDoc !== this.size || segment.firstTerm !== this.termNames.length) return false;
    for (const term of segment.terms) this.termOf(term, false);
    for (const { id, length, pairs } of segment.docs) {
      if (this.has(id)) return false;
      const doc = this.ids.push(id);
      this.ensureCapacity(doc + 1);
      for (let i = 0; i < pairs.length; i += 2) this.postings.append(pairs[i]!, doc, pairs[i + 1]!);
      this.docLengths[doc] = length;
      this.totalLength += length;
    }
    return true;
  }

  has(id: string): boolean {
    return this.ids.docOf(id) !== undefined;
  }

  /** Indexes `doc` under `id`; returns false when the id was already indexed. */
  add(id: string, doc: LexicalDocument): boolean {
    if (this.has(id)) return false;
    const { counts, length } = this.weightedCounts(doc);
    const number = this.ids.push(id);
    this.ensureCapacity(number + 1);
    const journal = this.journalBuffer;
    const pairs: number[] = [];
    for (const [word, tf] of counts) {
      const term = this.termOf(word, true);
      this.postings.append(term, number, tf);
      if (journal) pairs.push(term, tf);
    }
    this.docLengths[number] = length;
    this.totalLength += length;
    journal?.addDoc({ id, length, pairs });
    return true;
  }

  /** The `k` best documents for `query`, best first; `accept` is asked only of contenders. */
  search(query: string, k: number, accept?: (id: string) => boolean): Hit[] {
    if (k <= 0) return [];
    const terms = this.prepare(query);
    if (terms.length === 0) return [];
    const { scores, touched, ids } = this;
    // Equal scores are cut by id, not by document number: the pool is the same after a rebuild in
    // another order (an import), and the search's later stages read all of it (episodes.ts).
    const top = new TopK(k, ids.order());
    for (let i = 0; i < this.touchedCount; i++) {
      const doc = touched[i]!;
      const score = scores[doc]!;
      if (top.admits(score, doc) && (!accept || accept(ids.idOf(doc)))) top.push(score, doc);
    }
    return top
      .drain()
      .map(({ score, ref }) => ({ id: ids.idOf(ref), score }))
      .sort(byScoreThenId);
  }

  /**
   * A scorer for one query: the BM25 of any indexed id (0 when it shares no word, undefined when
   * unknown). Read from the accumulator (computed again if another query ran since), so after a
   * search of the same query each id costs one lookup. Lets hybrid search give documents that only
   * the vector side found their real lexical score.
   */
  scorer(query: string): (id: string) => number | undefined {
    return (id) => {
      const doc = this.ids.docOf(id);
      if (doc === undefined) return undefined;
      this.prepare(query);
      return this.scores[doc]!;
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

  /** Bytes the index holds (postings, ids, lengths, accumulator), for the memory figures. */
  bytesHeld(): number {
    const arrays = this.docLengths.byteLength + this.scores.byteLength + this.touched.byteLength;
    // Ids: 4 bytes of code and 8 of hash slots a document (slots at most half full).
    return this.postings.bytesHeld() + arrays + 12 * this.size;
  }

  /** The query's terms, with every matching document's score in the accumulator. */
  private prepare(query: string): QueryTerm[] {
    const last = this.accumulated;
    if (last && last.query === query && last.size === this.size) return last.terms;
    for (let i = 0; i < this.touchedCount; i++) this.scores[this.touched[i]!] = 0;
    this.touchedCount = 0;
    // Cleared first: should accumulating throw, no stale query claims the accumulator.
    this.accumulated = undefined;
    const terms = this.queryTerms(query);
    this.accumulate(terms);
    this.accumulated = { query, size: this.size, terms };
    return terms;
  }

  private queryTerms(query: string): QueryTerm[] {
    const n = this.size;
    const out: QueryTerm[] = [];
    for (const word of this.analyzer.queryTerms(query)) {
      const term = this.terms.get(word);
      if (term === undefined) continue;
      const df = this.postings.counts[term]!;
      // Lucene's idf: never negative, so a very common word still counts a little.
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      out.push({ term, idf });
    }
    return out;
  }

  /** Adds every term's contribution into `scores`, noting each document it touches first. */
  private accumulate(terms: QueryTerm[]): void {
    const avgLength = this.totalLength / Math.max(1, this.size) || 1;
    const { k1, b, scores, touched, docLengths } = this;
    const norms = this.normsFor(avgLength);
    const { buffers, used, pool } = this.postings;
    let touchedCount = this.touchedCount;
    for (const { term, idf } of terms) {
      // A rare term's postings are in its slot of the pool (lexical-postings.ts).
      const own = buffers[term];
      const bytes = own ?? pool;
      let at = own ? 0 : term * SLOT_BYTES;
      const end = at + used[term]!;
      const idfK1 = idf * (k1 + 1);
      let doc = -1;
      while (at < end) {
        // Two LEB128 varints: the gap from the previous document, then the weighted count.
        let gap = bytes[at++]!;
        if (gap > 0x7f) {
          gap &= 0x7f;
          for (let scale = 0x80; ; scale *= 0x80) {
            const byte = bytes[at++]!;
            gap += (byte & 0x7f) * scale;
            if (byte < 0x80) break;
          }
        }
        let units = bytes[at++]!;
        if (units > 0x7f) {
          units &= 0x7f;
          for (let scale = 0x80; ; scale *= 0x80) {
            const byte = bytes[at++]!;
            units += (byte & 0x7f) * scale;
            if (byte < 0x80) break;
          }
        }
        doc += gap;
        const tf = units / TF_UNITS;
        const length = docLengths[doc]!;
        const norm = length < NORM_TABLE ? norms[length]! : k1 * (1 - b + (b * length) / avgLength);
        const score = scores[doc]!;
        if (score === 0) touched[touchedCount++] = doc;
        scores[doc] = score + (idfK1 * tf) / (tf + norm);
      }
    }
    this.touchedCount = touchedCount;
  }

  private normsFor(avgLength: number): Float64Array {
    if (avgLength !== this.normsAverage) {
      const { k1, b, norms } = this;
      for (let length = 0; length < NORM_TABLE; length++)
        norms[length] = k1 * (1 - b + (b * length) / avgLength);
      this.normsAverage = avgLength;
    }
    return this.norms;
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

  /** The number of `word`, numbered now if new (and journaled, unless it comes from the journal). */
  private termOf(word: string, journal: boolean): number {
    let term = this.terms.get(word);
    if (term === undefined) {
      term = this.postings.addTerm();
      this.terms.set(word, term);
      this.termNames.push(word);
      if (journal) this.journalBuffer?.addTerm(word);
    }
    return term;
  }

  private restore(state: LexicalState): void {
    this.terms = state.terms;
    this.termNames = state.termNames;
    this.postings = state.postings;
    this.ids = state.ids;
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
    // The accumulator is clean between queries only after `prepare` cleared it: start clean.
    this.scores = new Float64Array(capacity);
    this.touched = new Uint32Array(capacity);
    this.touchedCount = 0;
    this.accumulated = undefined;
  }
}
