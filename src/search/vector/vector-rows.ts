import { decodeHalf, dotHalf, halfRowsToInt8 } from "./vector-codec.ts";
import type { RowSpace } from "./vector-row-space.ts";

/**
 * The stored vectors as float16 rows in a RowSpace (heap or mapped file), with their 32-bit keys,
 * the inverse norm of each stored row, and a key → row map; only keys and norms (8 bytes a
 * vector) are on the heap. Row order is the caller's business: `moveRow` and `dropLast` let it
 * fill holes in O(dims). `onOverwrite` is told before a row below `stable` is changed in place
 * (the saved files describe those rows: see VectorIndex).
 */
export class VectorRows {
  private keys: Uint32Array;
  private norms: Float32Array;
  private readonly rowByKey = new Map<number, number>();
  count = 0;
  /** Rows a saved file vouches for; changing one in place first calls `onOverwrite`. */
  stable = 0;
  onOverwrite: () => void = () => undefined;

  constructor(
    readonly dims: number,
    readonly space: RowSpace,
  ) {
    this.keys = new Uint32Array(1024);
    this.norms = new Float32Array(1024);
  }

  rowOf(key: number): number | undefined {
    return this.rowByKey.get(key);
  }

  keyAt(row: number): number {
    return this.keys[row]!;
  }

  /** Cosine of unit `q` with row `row` (the stored, rounded vector). */
  score(q: Float32Array, row: number): number {
    return dotHalf(q, this.space.data, row * this.dims) * this.norms[row]!;
  }

  /** The stored vector of `row`, unit length. */
  vectorAt(row: number): Float32Array {
    return decodeHalf(this.space.data, row * this.dims, this.dims, this.norms[row]!);
  }

  append(key: number, bits: Uint16Array, invNorm: number): void {
    this.ensureCapacity(this.count + 1);
    this.space.write(this.count, bits);
    this.keys[this.count] = key;
    this.norms[this.count] = invNorm;
    this.rowByKey.set(key, this.count);
    this.count++;
  }

  overwrite(row: number, bits: Uint16Array, invNorm: number): void {
    this.touch(row);
    this.space.write(row, bits);
    this.norms[row] = invNorm;
  }

  /** Copies row `from` over row `to` (whose old content is dropped); a no-op when they are equal. */
  moveRow(from: number, to: number): void {
    if (from === to) return;
    this.touch(to);
    this.space.move(from, to);
    const key = this.keys[from]!;
    this.keys[to] = key;
    this.norms[to] = this.norms[from]!;
    this.rowByKey.set(key, to);
  }

  /** Forgets `key` and the last row (the caller has moved whatever it wanted to keep out of it). */
  /**
   * Fills the place of `row` in rows partitioned into consecutive parts of `sizes` (the rest is
   * the last part), keeping them partitioned: the hole is filled by the last row of its part, whose
   * place the last row of the next part fills, and so on to the last row, which `dropLast` then
   * removes. Returns the index of the part `row` was in (`sizes.length`: the last part).
   */
  removeFromParts(row: number, sizes: number[], move: (from: number, to: number) => void): number {
    let hole = row;
    let end = 0;
    let part = sizes.length;
    sizes.forEach((size, i) => {
      end += size;
      if (row >= end) return;
      if (part === sizes.length) part = i;
      move(end - 1, hole);
      hole = end - 1;
    });
    move(this.count - 1, hole);
    return part;
  }

  dropLast(key: number): void {
    this.rowByKey.delete(key);
    this.count--;
    this.stable = Math.min(this.stable, this.count);
  }

  /** Keys of rows [from, to), as 64-bit keys for the graph. */
  graphKeys(from: number, to: number): BigUint64Array {
    return BigUint64Array.from(this.keys.subarray(from, to), (key) => BigInt(key));
  }

  /** Rows [from, to) as 8-bit vectors for the graph (see vector-codec.ts). */
  int8Rows(from: number, to: number): Int8Array {
    return halfRowsToInt8(this.space.data, this.dims, from, to);
  }

  /** The first `count` keys and norms, for the index file. */
  columns(): { keys: Uint32Array; norms: Float32Array } {
    return { keys: this.keys.subarray(0, this.count), norms: this.norms.subarray(0, this.count) };
  }

  /** Takes over `keys` and `norms` read from the index file, describing the space's first rows. */
  adopt(keys: Uint32Array, norms: Float32Array): void {
    this.rowByKey.clear();
    this.keys = keys;
    this.norms = norms;
    this.count = keys.length;
    this.space.ensure(this.count);
    for (let row = 0; row < keys.length; row++) this.rowByKey.set(keys[row]!, row);
  }

  /** Reorders rows so those with `first[row]` come first (stably); returns how many they are. */
  partition(first: boolean[]): number {
    const order = [...first.keys()].sort((a, b) => Number(!first[a]) - Number(!first[b]) || a - b);
    const chosen = first.filter(Boolean).length;
    if (order.every((row, i) => row === i)) return chosen;
    const rows = order.map((row) => this.space.data.slice(row * this.dims, (row + 1) * this.dims));
    const keys = Uint32Array.from(order, (row) => this.keys[row]!);
    const norms = Float32Array.from(order, (row) => this.norms[row]!);
    this.touch(0);
    rows.forEach((bits, row) => {
      this.space.write(row, bits);
    });
    this.adopt(keys, norms);
    return chosen;
  }

  release(): void {
    this.rowByKey.clear();
    this.count = 0;
    this.keys = new Uint32Array(0);
    this.norms = new Float32Array(0);
    this.space.release();
  }

  private touch(row: number): void {
    if (row >= this.stable) return;
    this.onOverwrite();
    this.stable = 0;
  }

  private ensureCapacity(rows: number): void {
    this.space.ensure(rows);
    if (rows <= this.keys.length) return;
    const capacity = Math.max(rows, this.keys.length * 2);
    const keys = new Uint32Array(capacity);
    keys.set(this.keys.subarray(0, this.count));
    this.keys = keys;
    const norms = new Float32Array(capacity);
    norms.set(this.norms.subarray(0, this.count));
    this.norms = norms;
  }
}
