/**
 * Vectors as rows of one growable Float32Array (no object per vector), with their 32-bit keys
 * and a key → row map. Row order is the caller's business; `moveRow` and `dropLast` let it fill
 * holes in O(dims).
 */
export class VectorMatrix {
  data: Float32Array;
  private keys: Uint32Array;
  private readonly rowByKey = new Map<number, number>();
  count = 0;

  constructor(
    readonly dims: number,
    capacity = 1024,
  ) {
    this.data = new Float32Array(capacity * dims);
    this.keys = new Uint32Array(capacity);
  }

  rowOf(key: number): number | undefined {
    return this.rowByKey.get(key);
  }

  keyAt(row: number): number {
    return this.keys[row]!;
  }

  append(key: number, vec: Float32Array): void {
    this.ensureCapacity(this.count + 1);
    this.data.set(vec, this.count * this.dims);
    this.keys[this.count] = key;
    this.rowByKey.set(key, this.count);
    this.count++;
  }

  overwrite(row: number, vec: Float32Array): void {
    this.data.set(vec, row * this.dims);
  }

  /** Copies row `from` over row `to` (whose old content is dropped); a no-op when they are equal. */
  moveRow(from: number, to: number): void {
    if (from === to) return;
    this.data.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
    const key = this.keys[from]!;
    this.keys[to] = key;
    this.rowByKey.set(key, to);
  }

  /** Forgets `key` and the last row (the caller has moved whatever it wanted to keep out of it). */
  dropLast(key: number): void {
    this.rowByKey.delete(key);
    this.count--;
  }

  /** Keys of rows [from, to), as a view: copy it before mutating the matrix. */
  keysOf(from: number, to: number): Uint32Array {
    return this.keys.subarray(from, to);
  }

  /** Rows [from, to) in a fresh buffer (offset 0), as native code needs. */
  copyRows(from: number, to: number): Float32Array {
    return this.data.slice(from * this.dims, to * this.dims);
  }

  /** The first `count` keys and rows as views starting at offset 0, for writing to disk. */
  bytes(): { keys: Uint8Array; vectors: Uint8Array } {
    return {
      keys: new Uint8Array(this.keys.buffer, 0, this.count * 4),
      vectors: new Uint8Array(this.data.buffer, 0, this.count * this.dims * 4),
    };
  }

  /**
   * Replaces the content with `keys` and their rows, taking the arrays over instead of copying
   * them (a loaded index may be hundreds of megabytes). `vectors` may be longer than
   * `keys.length` rows: the rest is room to grow.
   */
  adopt(keys: Uint32Array, vectors: Float32Array): void {
    if (vectors.length < keys.length * this.dims) throw new Error("fewer vectors than keys");
    const capacity = Math.floor(vectors.length / this.dims);
    this.rowByKey.clear();
    this.keys = new Uint32Array(capacity);
    this.keys.set(keys);
    this.data = vectors;
    this.count = keys.length;
    for (let row = 0; row < keys.length; row++) this.rowByKey.set(keys[row]!, row);
  }

  /** Reorders rows so those with `first[row]` come first (stably); returns how many they are. */
  partition(first: boolean[]): number {
    const chosen = first.filter(Boolean).length;
    if (chosen === this.count) return chosen;
    const order = [...first.keys()].sort((a, b) => Number(!first[a]) - Number(!first[b]) || a - b);
    const keys = new Uint32Array(this.count);
    const vectors = new Float32Array(this.count * this.dims);
    order.forEach((row, to) => {
      keys[to] = this.keys[row]!;
      vectors.set(this.data.subarray(row * this.dims, (row + 1) * this.dims), to * this.dims);
    });
    this.adopt(keys, vectors);
    return chosen;
  }

  /** Empties the matrix and gives its memory back. */
  release(): void {
    this.rowByKey.clear();
    this.count = 0;
    this.data = new Float32Array(0);
    this.keys = new Uint32Array(0);
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.keys.length) return;
    const capacity = Math.max(rows, this.keys.length * 2);
    const data = new Float32Array(capacity * this.dims);
    data.set(this.data.subarray(0, this.count * this.dims));
    this.data = data;
    const keys = new Uint32Array(capacity);
    keys.set(this.keys.subarray(0, this.count));
    this.keys = keys;
  }
}
