/**
 * Weighted term counts are kept as integers in units of 1/TF_UNITS: a field of weight 0.5 adds 8
 * units per occurrence, one of weight 1 adds 16. Field weights are therefore multiples of 1/16
 * (others are rounded), and postings stay small integers, compact in memory and on disk.
 */
export const TF_UNITS = 16;

const INITIAL_TERMS = 256;
/**
 * Each term's first bytes live in a slot of one shared pool: most terms of real text are rare (a
 * name, an id, a number: one to four postings), and a typed array of their own costs ~76 bytes of
 * heap, more than their postings. A term moves to a buffer of its own when its slot is full.
 */
export const SLOT_BYTES = 16;

/**
 * Every term's postings, by term number: (document gap, weighted count) pairs as LEB128 varints,
 * documents ascending (they are only appended), in the term's slot of the shared pool while they
 * fit (SLOT_BYTES), then in a buffer of its own. A typical posting takes 2 bytes (a gap under 128,
 * a count of 16 units), where (u32, u32) pairs took 8; the per-term bookkeeping (bytes used,
 * postings, last document) lives in typed arrays shared by all terms, so a rare term costs no
 * object at all. Read by decoding a list from the start (`decode`): BM25 reads whole lists anyway.
 */
export class PostingLists {
  /** A term's own buffer, or undefined while its postings fit its slot of `pool`. */
  buffers: Array<Uint8Array | undefined> = [];
  /** SLOT_BYTES per term: the postings of terms without a buffer of their own. */
  pool = new Uint8Array(INITIAL_TERMS * SLOT_BYTES);
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
    this.buffers.push(undefined);
    return term;
  }

  /** A term read back whole (a saved index): its bytes, postings and last document. */
  adoptTerm(bytes: Uint8Array, count: number, last: number): number {
    const term = this.addTerm();
    if (bytes.length <= SLOT_BYTES) this.pool.set(bytes, term * SLOT_BYTES);
    else this.buffers[term] = bytes;
    this.used[term] = bytes.length;
    this.counts[term] = count;
    this.last[term] = last;
    return term;
  }

  /** Appends `doc` (greater than the term's last) with its weighted count `tf`. */
  append(term: number, doc: number, tf: number): void {
    const gap = doc - this.last[term]!;
    const used = this.used[term]!;
    const needed = used + varintBytes(gap) + varintBytes(tf);
    let buffer = this.buffers[term];
    let at = used;
    if (buffer === undefined && needed <= SLOT_BYTES) {
      buffer = this.pool;
      at += term * SLOT_BYTES;
    } else if (buffer === undefined || needed > buffer.length) {
      const grown = new Uint8Array(Math.max(2 * (buffer?.length ?? SLOT_BYTES), needed));
      grown.set(this.bytesOf(term));
      this.buffers[term] = grown;
      buffer = grown;
    }
    at = writeVarint(buffer, at, gap);
    writeVarint(buffer, at, tf);
    this.used[term] = needed;
    this.counts[term]!++;
    this.last[term] = doc;
  }

  /** The term's bytes in use (a view, for saving). */
  bytesOf(term: number): Uint8Array {
    const own = this.buffers[term];
    if (own) return own.subarray(0, this.used[term]!);
    const start = term * SLOT_BYTES;
    return this.pool.subarray(start, start + this.used[term]!);
  }

  /** Calls `visit(doc, tf)` for each posting of `term`, documents ascending. */
  decode(term: number, visit: (doc: number, tf: number) => void): void {
    const buffer = this.bytesOf(term);
    const end = buffer.length;
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
    let bytes = this.used.byteLength + this.counts.byteLength + this.last.byteLength + this.pool.byteLength;
    for (const buffer of this.buffers) bytes += buffer?.byteLength ?? 0;
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
    const pool = new Uint8Array(size * SLOT_BYTES);
    pool.set(this.pool);
    this.pool = pool;
    this.used = used;
    this.counts = counts;
    this.last = last;
  }
}

function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
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
