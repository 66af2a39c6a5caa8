import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

/**
 * On disk a vector index is three files:
 * - `<file>`: the usearch graph (8-bit vectors and links), opened by memory-mapping (`view`);
 * - `<file>.f16`: the vectors as float16 rows (vector-codec.ts), memory-mapped (vector-row-space.ts);
 * - `<file>.vectors`: what the rows are: a 32-byte header (magic, version 2, dims, count,
 *   graphRows, graphSize, two reserved; little-endian u32), then `count` u32 keys, then `count`
 *   f32 inverse norms. Rows [0, graphRows) are in the graph, the rest are pending; graphSize is
 *   the graph's size when it was saved. Version 3 adds, after the norms, the sum of the stored
 *   unit vectors (`dims` f64) and the centre the graph was built around (`dims` f32; see
 *   vector-centre.ts). A version 2 file (a graph built uncentred) reads as centred on zero.
 *
 * A save syncs the rows, then replaces `.vectors`, then the graph (temporary file, rename): a crash
 * between the two renames leaves a graph older than `.vectors`, which the open notices (its size)
 * and repairs. Version 1 `.vectors` files (keys then float32 rows, before the rows moved to the
 * mapped file) are converted on open.
 */
const MAGIC = 0x58564d54; // "TMVX"
const VERSION = 3;
const V2 = 2;
const V1 = 1;
const HEADER_BYTES = 32;
const V1_HEADER_BYTES = 16;

/** The index files exist but cannot be used (corrupt, other dims): rebuild from the vault. */
export class VectorIndexUnreadable extends Error {
  override readonly name = "VectorIndexUnreadable";
}

export interface IndexMeta {
  keys: Uint32Array;
  norms: Float32Array;
  graphRows: number;
  graphSize: number;
  /** Version 3: the vectors' sum and the graph's centre (undefined in a version 2 file). */
  centre?: { sum: Float64Array; centre: Float32Array };
}

export function metaPathOf(file: string): string {
  return `${file}.vectors`;
}

export function rowsPathOf(file: string): string {
  return `${file}.f16`;
}

export function hasIndexFiles(file: string): boolean {
  return existsSync(file) || existsSync(metaPathOf(file));
}

/** The meta file's version (1, 2 or 3); throws VectorIndexUnreadable when it is neither. */
export function metaVersion(file: string, dims: number): number {
  const path = metaPathOf(file);
  if (!existsSync(path)) throw new VectorIndexUnreadable(`${path} is missing`);
  const header = readHeader(path, V1_HEADER_BYTES);
  if (header.getUint32(0, true) !== MAGIC) throw new VectorIndexUnreadable(`${path} is not a vectors file`);
  const version = header.getUint32(4, true);
  if (version !== V1 && version !== V2 && version !== VERSION)
    throw new VectorIndexUnreadable(`${path} is a vectors file of version ${version}`);
  const fileDims = header.getUint32(8, true);
  if (fileDims !== dims)
    throw new VectorIndexUnreadable(`${path} has ${fileDims} dimensions, expected ${dims}`);
  return version;
}

export function readMeta(file: string, dims: number): IndexMeta {
  const path = metaPathOf(file);
  const version = metaVersion(file, dims);
  const tail = version === VERSION ? dims * 12 : 0;
  const fd = openSync(path, "r");
  try {
    const header = new Uint8Array(HEADER_BYTES);
    readFully(fd, header, 0);
    const view = new DataView(header.buffer);
    const count = view.getUint32(12, true);
    const graphRows = view.getUint32(16, true);
    const graphSize = view.getUint32(20, true);
    if (fstatSync(fd).size !== HEADER_BYTES + count * 8 + tail || graphRows > count) {
      throw new VectorIndexUnreadable(`${path} is truncated or too long for ${count} vectors`);
    }
    const keys = new Uint32Array(count);
    readFully(fd, new Uint8Array(keys.buffer), HEADER_BYTES);
    const norms = new Float32Array(count);
    readFully(fd, new Uint8Array(norms.buffer), HEADER_BYTES + count * 4);
    if (!tail) return { keys, norms, graphRows, graphSize };
    const sum = new Float64Array(dims);
    readFully(fd, new Uint8Array(sum.buffer), HEADER_BYTES + count * 8);
    const centre = new Float32Array(dims);
    readFully(fd, new Uint8Array(centre.buffer), HEADER_BYTES + count * 8 + dims * 8);
    return { keys, norms, graphRows, graphSize, centre: { sum, centre } };
  } finally {
    closeSync(fd);
  }
}

export function writeMeta(file: string, dims: number, meta: IndexMeta): void {
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, dims, true);
  view.setUint32(12, meta.keys.length, true);
  view.setUint32(16, meta.graphRows, true);
  view.setUint32(20, meta.graphSize, true);
  const bytes = (a: Uint32Array | Float32Array | Float64Array) =>
    new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const centre = meta.centre ?? { sum: new Float64Array(dims), centre: new Float32Array(dims) };
  const chunks = [header, bytes(meta.keys), bytes(meta.norms), bytes(centre.sum), bytes(centre.centre)];
  replaceDurably(metaPathOf(file), chunks);
}

/** Removes `.vectors`, so a crash before the next save leaves files an open refuses, never wrong rows. */
export function dropMeta(file: string): void {
  rmSync(metaPathOf(file), { force: true });
  syncDirectory(dirname(file));
}

/** A version 1 file's keys and float32 rows, read in chunks of `chunk` rows (the rows may be large). */
export function* readV1Vectors(
  file: string,
  dims: number,
  chunk = 4096,
): Generator<{ keys: Uint32Array; vectors: Float32Array }> {
  const path = metaPathOf(file);
  const fd = openSync(path, "r");
  try {
    const header = new Uint8Array(V1_HEADER_BYTES);
    readFully(fd, header, 0);
    const count = new DataView(header.buffer).getUint32(12, true);
    if (fstatSync(fd).size !== V1_HEADER_BYTES + count * 4 + count * dims * 4) {
      throw new VectorIndexUnreadable(`${path} is truncated or too long for ${count} vectors`);
    }
    const keys = new Uint32Array(count);
    readFully(fd, new Uint8Array(keys.buffer), V1_HEADER_BYTES);
    const rowsAt = V1_HEADER_BYTES + count * 4;
    for (let from = 0; from < count; from += chunk) {
      const n = Math.min(chunk, count - from);
      const vectors = new Float32Array(n * dims);
      readFully(fd, new Uint8Array(vectors.buffer), rowsAt + from * dims * 4);
      yield { keys: keys.subarray(from, from + n), vectors };
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes the graph through `save` to a temporary file, syncs it and renames it over `file`. */
export function replaceGraph(file: string, save: (path: string) => void): void {
  mkdirSync(dirname(file), { recursive: true });
  save(`${file}.tmp`);
  syncFile(`${file}.tmp`);
  renameSync(`${file}.tmp`, file);
  syncDirectory(dirname(file));
}

function readHeader(path: string, bytes: number): DataView {
  const fd = openSync(path, "r");
  try {
    const header = new Uint8Array(bytes);
    if (readFully(fd, header, 0) !== bytes) throw new VectorIndexUnreadable(`${path} is truncated`);
    return new DataView(header.buffer);
  } finally {
    closeSync(fd);
  }
}

/** Fills `into` from file offset `position`; returns the bytes read (fewer only at end of file). */
function readFully(fd: number, into: Uint8Array, position: number): number {
  let done = 0;
  while (done < into.byteLength) {
    const read = readSync(fd, into, done, into.byteLength - done, position + done);
    if (read === 0) break;
    done += read;
  }
  return done;
}

/** Replaces `path` with `chunks`: written to a temporary file, synced, renamed, the rename synced. */
export function replaceDurably(path: string, chunks: Uint8Array[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeDurably(`${path}.tmp`, chunks);
  renameSync(`${path}.tmp`, path);
  syncDirectory(dirname(path));
}

function writeDurably(path: string, chunks: Uint8Array[]): void {
  const fd = openSync(path, "w");
  try {
    for (const chunk of chunks) {
      let written = 0;
      while (written < chunk.byteLength) written += writeSync(fd, chunk, written);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncFile(path: string, flags = "r+"): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes the renames durable; some platforms cannot open a directory, and then it is skipped. */
function syncDirectory(path: string): void {
  try {
    syncFile(path, "r");
  } catch {
    // Best effort: the files themselves are already synced.
  }
}
