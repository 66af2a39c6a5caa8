/** Two hex digits of each byte value, to spell ids without toString and padStart. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Document numbers of a BM25 index and the ids they stand for. Entry ids (8 hex characters) are kept
 * as u32 in typed arrays, with an open-addressing table from id to number: 4 bytes a document plus
 * the table's ~12, where an array of strings and a Map of them cost ~100. Other ids (tests, tools)
 * go to a Map beside it.
 */
export class DocIds {
  /** The id of each document number, as u32 (meaningless for the numbers in `others`). */
  private codes = new Uint32Array(1024);
  private count = 0;
  /** Open addressing: slot → document number + 1 (0: empty). Keys are read back from `codes`. */
  private slots = new Int32Array(2048);
  private readonly others = new Map<string, number>();
  private readonly otherIds = new Map<number, string>();

  get size(): number {
    return this.count;
  }

  /** The number of `id`, or undefined. */
  docOf(id: string): number | undefined {
    const code = hexCode(id);
    if (code < 0) return this.others.get(id);
    const mask = this.slots.length - 1;
    for (let slot = hashOf(code) & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === 0) return undefined;
      if (this.codes[held - 1] === code) return held - 1;
    }
  }

  /**
   * The order of ids as a comparison of document numbers, for one search (the arrays grow with the
   * index): 8 hex digits compare as their u32 codes, other ids as strings.
   */
  order(): (a: number, b: number) => boolean {
    const codes = this.codes;
    if (this.otherIds.size === 0) return (a, b) => codes[a]! < codes[b]!;
    return (a, b) => this.idOf(a) < this.idOf(b);
  }

  idOf(doc: number): string {
    const other = this.otherIds.size > 0 ? this.otherIds.get(doc) : undefined;
    if (other !== undefined) return other;
    const code = this.codes[doc]!;
    return (
      HEX_PAIRS[code >>> 24]! +
      HEX_PAIRS[(code >>> 16) & 0xff]! +
      HEX_PAIRS[(code >>> 8) & 0xff]! +
      HEX_PAIRS[code & 0xff]!
    );
  }

  /** Appends `id` as the next document number (the caller checked it is new); returns it. */
  push(id: string): number {
    const doc = this.count++;
    this.ensureCapacity(this.count);
    const code = hexCode(id);
    if (code >= 0) {
      this.codes[doc] = code;
      this.place(doc);
    } else {
      this.others.set(id, doc);
      this.otherIds.set(doc, id);
    }
    return doc;
  }

  /** Every hex id's code in document order (others hold 0) and the other ids: for saving. */
  snapshot(): { codes: Uint32Array; others: Map<number, string> } {
    return { codes: this.codes.subarray(0, this.count), others: this.otherIds };
  }

  /** The table of a snapshot's codes and other ids (`snapshot`). */
  static from(codes: Uint32Array, others: ReadonlyMap<number, string>): DocIds {
    const ids = new DocIds();
    ids.codes = new Uint32Array(Math.max(1024, codes.length));
    ids.codes.set(codes);
    let slots = 2048;
    while (slots < codes.length * 2) slots *= 2;
    ids.slots = new Int32Array(slots);
    ids.count = codes.length;
    for (const [doc, id] of others) {
      ids.others.set(id, doc);
      ids.otherIds.set(doc, id);
    }
    for (let doc = 0; doc < codes.length; doc++) if (!others.has(doc)) ids.place(doc);
    return ids;
  }

  private place(doc: number): void {
    const mask = this.slots.length - 1;
    let slot = hashOf(this.codes[doc]!) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = doc + 1;
  }

  private ensureCapacity(docs: number): void {
    if (docs > this.codes.length) {
      const codes = new Uint32Array(Math.max(docs, this.codes.length * 2));
      codes.set(this.codes);
      this.codes = codes;
    }
    // Load factor at most 1/2: probes stay short.
    if (docs * 2 <= this.slots.length) return;
    this.slots = new Int32Array(this.slots.length * 2);
    for (let doc = 0; doc < docs - 1; doc++) if (!this.otherIds.has(doc)) this.place(doc);
  }
}

/** The u32 an entry id (8 lower-case hex characters) spells, or -1 for any other id. */
export function hexCode(id: string): number {
  if (id.length !== 8) return -1;
  let code = 0;
  for (let i = 0; i < 8; i++) {
    const c = id.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    code = code * 16 + digit;
  }
  return code;
}

/** Fibonacci hashing: entry ids are already uniform, but tests use sequential ones. */
function hashOf(code: number): number {
  return Math.imul(code, 0x9e3779b1) >>> 7;
}
