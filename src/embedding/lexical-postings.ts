/**
 * Weighted term counts are kept as integers in units of 1/TF_UNITS: a field of weight 0.5 adds 8
 * units per occurrence, one of weight 1 adds 16. Field weights are therefore multiples of 1/16
 * (others are rounded), and postings stay small integers, compact in memory and on disk.
 */
export const TF_UNITS = 16;

const INITIAL_TERMS = 256;
const INITIAL_BYTES = 8;

/**
 * Every term's postings, by term number: per term one byte buffer of (document gap, weighted count)
 * pairs as LEB128 varints, documents ascending (they are only appended). A typical posting takes 2
 * bytes (a gap under 128, a count of 16 units), where (u32, u32) pairs took 8; the per-term
 * bookkeeping (bytes used, postings, last document) lives in typed arrays shared by all terms, so a
 * term costs one buffer object, which matters because most terms of real text are rare.
 * Read by decoding a list from the start (`decode`): BM25 reads whole lists anyway.
 */
export class PostingLists {
  buffers: Uint8Array[] = [];
  /** Bytes used of each term's buffer. */
  used = new Uint32Array(INITIAL_TERMS);
  /** Postings of each term: its document frequency. */
  counts = new Uint32Array(INITIAL_TERMS);
  /** The last document of each term (-1: none yet). */
  last = new Int32Array(INITIAL_TERMS).fill(-1);

  get terms(): number {
    return this.buffers.length;
  }

  /** A new, empty term; returns its number. */
  addTerm(): number {
    const term = this.buffers.length;
    if (term === this.used.length) this.growTerms();
    this.buffers.push(new Uint8Array(INITIAL_BYTES));
    return term;
  }

  /** A term read back whole (a saved index): its bytes, postings and last document. */
  adoptTerm(bytes: Uint8Array, count: number, last: number): number {
    const term = this.addTerm();
    this.buffers[term] = bytes;
    this.used[term] = bytes.length;
    this.counts[term] = count;
    this.last[term] = last;
    return term;
  }

  /** Appends `doc` (greater than the term's last) with its weighted count `tf`. */
  append(term: number, doc: number, tf: number): void {
    let buffer = this.buffers[term]!;
    let at = this.used[term]!;
    // Two varints of at most 5 bytes each.
    if (at + 10 > buffer.length) {
      const grown = new Uint8Array(Math.max(buffer.length * 2, at + 10));
      grown.set(buffer.subarray(0, at));
      this.buffers[term] = grown;
      buffer = grown;
    }
    at = writeVarint(buffer, at, doc - this.last[term]!);
    this.used[term] = writeVarint(buffer, at, tf);
    this.counts[term]!++;
    this.last[term] = doc;
  }

  /** The term's bytes in use (a view, for saving). */
  bytesOf(term: number): Uint8Array {
    return this.buffers[term]!.subarray(0, this.used[term]!);
  }

  /** Calls `visit(doc, tf)` for each posting of `term`, documents ascending. */
  decode(term: number, visit: (doc: number, tf: number) => void): void {
    const buffer = this.buffers[term]!;
    const end = this.used[term]!;
    let doc = -1;
    let at = 0;
    while (at < end) {
      let gap = buffer[at++]!;
      if (gap > 0x7f) [gap, at] = readVarintRest(buffer, at, gap);
      let tf = buffer[at++]!;
      if (tf > 0x7f) [tf, at] = readVarintRest(buffer, at, tf);
      doc += gap;
      visit(doc, tf);
    }
  }

  /** Bytes held by the buffers (allocated, not only used), for the memory figures. */
  bytesHeld(): number {
    let bytes = this.used.byteLength + this.counts.byteLength + this.last.byteLength;
    for (const buffer of this.buffers) bytes += buffer.byteLength;
    return bytes;
  }

  private growTerms(): void {
    const size = this.used.length * 2;
    const used = new Uint32Array(size);
    used.set(this.used);
    const counts = new Uint32Array(size);
    counts.set(this.counts);
    const last = new Int32Array(size).fill(-1);
    last.set(this.last);
    this.used = used;
    this.counts = counts;
    this.last = last;
  }
}

/** Writes `value` (a non-negative integer below 2^32) as LEB128 at `at`; returns the next offset. */
export function writeVarint(buffer: Uint8Array, at: number, value: number): number {
  let v = value;
  while (v > 0x7f) {
    buffer[at++] = (v & 0x7f) | 0x80;
    v = v >>> 7;
  }
  buffer[at++] = v;
  return at;
}

/** The rest of a varint whose first byte (`first`, continuation bit set) was read before `at`. */
export function readVarintRest(buffer: Uint8Array, at: number, first: number): [number, number] {
  let value = first & 0x7f;
  let shift = 7;
  let i = at;
  for (;;) {
    const byte = buffer[i++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, i];
    shift += 7;
  }
}
