import { statSync } from "node:fs";
import { Index, MetricKind, ScalarKind } from "usearch";
import { replaceGraph, VectorIndexUnreadable } from "./vector-files.ts";

/** A file with nothing in it, which `release` loads to reset an index. */
const EMPTY_FILE = "/dev/null";

export interface GraphShape {
  dims: number;
  connectivity: number;
  expansionAdd: number;
  /** The walk's minimum candidate list; a search widens it by asking for more results. */
  expansionSearch: number;
}

/**
 * The usearch HNSW graph over 8-bit vectors (vector-codec.ts), keyed by 32-bit entry keys. Opened
 * from a file it is memory-mapped (`view`): nothing is read until a search walks it, so an open
 * costs no time and the resident set holds only the pages searches touch. A view is immutable;
 * the first insertion or removal after it loads the file into memory (once per process: ~50 ms
 * at 100k vectors; an index built in rounds never does: graph-build.ts changes a graph of its own
 * on the builder's thread). Removals from a view are deferred: the owner ignores hits it no longer
 * stores, and `add` first removes keys the graph still holds.
 */
export class VectorGraph {
  private index: Index;
  private viewed: string | undefined;
  /** Keys removed while viewed, removed from the graph when it is loaded. */
  private readonly deferred = new Set<number>();
  /** Whether it holds anything its file does not (a new graph has no file yet). */
  dirty = true;

  constructor(readonly shape: GraphShape) {
    this.index = this.newIndex();
  }

  /** Maps `file`; throws VectorIndexUnreadable when usearch refuses it or its dims differ. */
  view(file: string): void {
    // usearch closes descriptor 0 (another file's, once 0 is reused) when it cannot open or map
    // the file: a missing or empty one is refused here, before it gets that far.
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) === 0) {
      throw new VectorIndexUnreadable(`${file} is missing or empty`);
    }
    const index = this.newIndex();
    try {
      index.view(file);
    } catch (err) {
      throw new VectorIndexUnreadable(`${file} cannot be mapped: ${(err as Error).message}`);
    }
    if (index.dimensions() !== this.shape.dims) {
      throw new VectorIndexUnreadable(
        `${file} has ${index.dimensions()} dimensions, expected ${this.shape.dims}`,
      );
    }
    release(this.index);
    this.index = index;
    this.viewed = file;
    this.dirty = false;
  }

  get size(): number {
    return this.index.size();
  }

  contains(keys: BigUint64Array): boolean[] {
    return keys.length ? (this.index.contains(keys) as boolean[]) : [];
  }

  /** Inserts `vectors` (8-bit rows) under `keys`, replacing keys it already holds. */
  add(keys: BigUint64Array, vectors: Int8Array, threads: number): void {
    this.mutable();
    const held = this.contains(keys);
    for (let i = 0; i < keys.length; i++) if (held[i]) this.index.remove(keys[i]!);
    this.index.add(keys, vectors, threads);
    this.dirty = true;
  }

  /** Removes `key` now if the graph is in memory; a view keeps it until the next insertion. */
  remove(key: number): void {
    if (this.viewed) {
      this.deferred.add(key);
      return;
    }
    this.index.remove(BigInt(key));
    this.dirty = true;
  }

  /** Keys of the `wanted` nearest 8-bit vectors to `query`, nearest first (`wanted` ≥ the walk's list). */
  search(query: Int8Array, wanted: number): BigUint64Array {
    const found = this.index.search(query, Math.min(wanted, this.index.size()), 1);
    return found.keys;
  }

  /** Writes the graph to `file` if it changed since it was read or saved; it stays as it is. */
  save(file: string): void {
    if (!this.dirty) return;
    replaceGraph(file, (path) => this.index.save(path));
    this.dirty = false;
  }

  /** Empties the graph: its memory goes and a mapped file is unmapped and closed, at once. */
  clear(): void {
    release(this.index);
    this.index = this.newIndex();
    this.viewed = undefined;
    this.deferred.clear();
    this.dirty = true;
  }

  /** Makes the graph changeable: a mapped one is read into memory, its deferred removals applied. */
  mutable(): void {
    if (!this.viewed) return;
    const index = this.newIndex();
    index.load(this.viewed);
    release(this.index);
    this.index = index;
    this.viewed = undefined;
    for (const key of this.deferred) index.remove(BigInt(key));
    if (this.deferred.size > 0) this.dirty = true;
    this.deferred.clear();
  }

  private newIndex(): Index {
    return new Index({
      dimensions: this.shape.dims,
      metric: MetricKind.Cos,
      quantization: ScalarKind.I8,
      connectivity: this.shape.connectivity,
      expansion_add: this.shape.expansionAdd,
      expansion_search: this.shape.expansionSearch,
      multi: false,
    });
  }
}

/**
 * Gives back at once what a usearch index holds: its memory and, for a view, the mapping and the
 * file descriptor. The binding has no close, and an index merely dropped keeps both until the
 * collector finalizes it, so every tenant passivated after a read kept its graph's descriptor open
 * (the open-file bound counts only open tenants). `load` resets the index before it reads the
 * file, and /dev/null has no header to read, so this leaves an empty, usable index behind. Not
 * `view` of a path that cannot be opened: usearch 2.26 then closes descriptor 0, whatever it is.
 */
function release(index: Index): void {
  try {
    index.load(EMPTY_FILE);
  } catch {
    // The expected "Failed to read 32-bit dimensions": the reset has happened.
  }
}
