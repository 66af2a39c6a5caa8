import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Where the vector rows (float16 bit patterns, `dims` per row) live: the heap for a memory-only
 * index, a memory-mapped file for a saved one. `data` covers the whole capacity; read it again
 * after `ensure`, which may replace it.
 */
export interface RowSpace {
  readonly data: Uint16Array;
  /** Rows the backing held when opened (a file written before; 0 on the heap). */
  readonly rowsOnOpen: number;
  /** Room for at least `rows` rows (growing by doubling). */
  ensure(rows: number): void;
  write(row: number, bits: Uint16Array): void;
  /** Copies row `from` over row `to`. */
  move(from: number, to: number): void;
  /** Makes every write durable (a no-op on the heap). */
  sync(): void;
  release(): void;
}

const MIN_ROWS = 1024;

export class HeapRowSpace implements RowSpace {
  data: Uint16Array;
  readonly rowsOnOpen = 0;

  constructor(private readonly dims: number) {
    this.data = new Uint16Array(MIN_ROWS * dims);
  }

  ensure(rows: number): void {
    if (rows * this.dims <= this.data.length) return;
    const grown = new Uint16Array(Math.max(rows, (this.data.length / this.dims) * 2) * this.dims);
    grown.set(this.data);
    this.data = grown;
  }

  write(row: number, bits: Uint16Array): void {
    this.data.set(bits, row * this.dims);
  }

  move(from: number, to: number): void {
    this.data.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
  }

  sync(): void {}

  release(): void {
    this.data = new Uint16Array(0);
  }
}

/**
 * Rows in a file mapped into memory (shared with the page cache, never copied to the heap). Rows
 * are written with pwrite, not through the mapping: the kernel keeps them in its cache, and the
 * process's resident set only grows by the pages a search actually reads (the few dozen rows it
 * rescores), not by every row written. The file is sized to the capacity (sparse past the rows),
 * doubled and mapped again when full.
 */
export class MappedRowSpace implements RowSpace {
  data: Uint16Array = new Uint16Array(0);
  readonly rowsOnOpen: number;
  private fd: number;
  private readonly rowBytes: number;

  constructor(
    private readonly path: string,
    private readonly dims: number,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.rowBytes = dims * 2;
    this.fd = openSync(path, "a+");
    closeSync(this.fd);
    this.fd = openSync(path, "r+");
    this.rowsOnOpen = Math.floor(fstatSync(this.fd).size / this.rowBytes);
    this.map(Math.max(this.rowsOnOpen, MIN_ROWS));
  }

  ensure(rows: number): void {
    const capacity = this.data.length / this.dims;
    if (rows > capacity) this.map(Math.max(rows, capacity * 2));
  }

  write(row: number, bits: Uint16Array): void {
    const bytes = new Uint8Array(bits.buffer, bits.byteOffset, this.rowBytes);
    let done = 0;
    while (done < bytes.byteLength) {
      done += writeSync(this.fd, bytes, done, bytes.byteLength - done, row * this.rowBytes + done);
    }
  }

  move(from: number, to: number): void {
    if (from !== to) this.write(to, this.data.slice(from * this.dims, (from + 1) * this.dims));
  }

  sync(): void {
    fsyncSync(this.fd);
  }

  release(): void {
    this.data = new Uint16Array(0);
    closeSync(this.fd);
  }

  private map(rows: number): void {
    const bytes = rows * this.rowBytes;
    if (fstatSync(this.fd).size < bytes) ftruncateSync(this.fd, bytes);
    // The previous mapping is unmapped when the collector frees its buffer.
    const mapped = Bun.mmap(this.path);
    this.data = new Uint16Array(mapped.buffer, mapped.byteOffset, rows * this.dims);
  }
}
