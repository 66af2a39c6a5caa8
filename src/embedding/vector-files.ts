import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { Index } from "usearch";
import type { VectorMatrix } from "./vector-matrix.ts";

/**
 * On disk a vector index is two files: `<file>`, the usearch graph, and `<file>.vectors`, our
 * copy of the vectors (usearch cannot return them), laid out as a 16-byte header
 * (magic, version, dims, count: little-endian u32) then `count` u32 keys then `count × dims` f32.
 *
 * Both are written to temporary files and renamed, vectors first: a crash between the renames
 * leaves a graph older than its vectors, which loading repairs by inserting what the graph lacks.
 */
const MAGIC = 0x58564d54; // "TMVX"
const VERSION = 1;
const HEADER_BYTES = 16;

/** The index files exist but cannot be used (corrupt, other dims): rebuild from the vault. */
export class VectorIndexUnreadable extends Error {
  override readonly name = "VectorIndexUnreadable";
}

export interface LoadedIndex {
  graph: Index;
  keys: Uint32Array;
  vectors: Float32Array;
  /** Per key: whether the loaded graph holds it. */
  inGraph: boolean[];
}

export function vectorsPathOf(file: string): string {
  return `${file}.vectors`;
}

export function hasIndexFiles(file: string): boolean {
  return existsSync(file) || existsSync(vectorsPathOf(file));
}

export function readIndexFiles(file: string, dims: number, newGraph: () => Index): LoadedIndex {
  const vectorsPath = vectorsPathOf(file);
  if (!existsSync(vectorsPath)) throw new VectorIndexUnreadable(`${vectorsPath} is missing`);
  const { keys, vectors } = readVectors(vectorsPath, dims);
  const graph = newGraph();
  if (!existsSync(file)) return { graph, keys, vectors, inGraph: new Array(keys.length).fill(false) };
  try {
    graph.load(file);
  } catch (err) {
    throw new VectorIndexUnreadable(`${file} cannot be loaded: ${(err as Error).message}`);
  }
  if (graph.dimensions() !== dims) {
    throw new VectorIndexUnreadable(`${file} has ${graph.dimensions()} dimensions, expected ${dims}`);
  }
  const inGraph = keys.length
    ? (graph.contains(BigUint64Array.from(keys, (k) => BigInt(k))) as boolean[])
    : [];
  return { graph, keys, vectors, inGraph };
}

export function writeIndexFiles(file: string, graph: Index, rows: VectorMatrix): void {
  mkdirSync(dirname(file), { recursive: true });
  const vectorsPath = vectorsPathOf(file);
  const { keys, vectors } = rows.bytes();
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, VERSION, true);
  view.setUint32(8, rows.dims, true);
  view.setUint32(12, rows.count, true);
  writeDurably(`${vectorsPath}.tmp`, [header, keys, vectors]);
  renameSync(`${vectorsPath}.tmp`, vectorsPath);
  graph.save(`${file}.tmp`);
  syncFile(`${file}.tmp`);
  renameSync(`${file}.tmp`, file);
  syncDirectory(dirname(file));
}

/** Reads straight into the arrays the index will use, leaving a quarter of room to grow. */
function readVectors(path: string, dims: number): { keys: Uint32Array; vectors: Float32Array } {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    const header = new Uint8Array(HEADER_BYTES);
    const view = new DataView(header.buffer);
    const complete = readFully(fd, header, 0) === HEADER_BYTES;
    if (!complete || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) {
      throw new VectorIndexUnreadable(`${path} is not a vectors file of this version`);
    }
    const fileDims = view.getUint32(8, true);
    const count = view.getUint32(12, true);
    if (fileDims !== dims)
      throw new VectorIndexUnreadable(`${path} has ${fileDims} dimensions, expected ${dims}`);
    if (size !== HEADER_BYTES + count * 4 + count * dims * 4) {
      throw new VectorIndexUnreadable(`${path} is truncated or too long for ${count} vectors`);
    }
    const keys = new Uint32Array(count);
    readFully(fd, new Uint8Array(keys.buffer), HEADER_BYTES);
    const vectors = new Float32Array(Math.ceil(count * 1.25) * dims);
    readFully(fd, new Uint8Array(vectors.buffer, 0, count * dims * 4), HEADER_BYTES + count * 4);
    return { keys, vectors };
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
