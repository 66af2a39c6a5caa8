import { existsSync, renameSync, rmSync } from "node:fs";
import type { Hit } from "../hit.ts";
import {
  type GraphRound,
  type GraphRoundInput,
  type GraphRoundOutput,
  removeRoundFiles,
  roundFileOf,
} from "./graph-build.ts";
import { VectorCentre } from "./vector-centre.ts";
import { encodeHalf, unitVector } from "./vector-codec.ts";
import {
  dropMeta,
  hasIndexFiles,
  metaVersion,
  readMeta,
  readV1Vectors,
  rowsPathOf,
  VectorIndexUnreadable,
  writeMeta,
} from "./vector-files.ts";
import { VectorGraph } from "./vector-graph.ts";
import { keyOf, parseId, SHA8 } from "./vector-keys.ts";
import { HeapRowSpace, MappedRowSpace } from "./vector-row-space.ts";
import { VectorRows } from "./vector-rows.ts";
import { VectorSearchPaths } from "./vector-search-paths.ts";
import { VectorTail } from "./vector-tail.ts";

export type { GraphRound } from "./graph-build.ts";
export { searchExact } from "./vector-exact-search.ts";
export { VectorIndexUnreadable } from "./vector-files.ts";

export interface VectorIndexOptions {
  /** Graph file; the vectors live beside it (vector-files.ts). Undefined: memory only. */
  file?: string;
  dims: number;
  /** Below this many vectors every search is exact (cheaper than a graph walk, and perfect). */
  exactThreshold?: number;
  /** HNSW parameters (usearch): edges per node, and the candidate list size on insert. */
  connectivity?: number;
  expansionAdd?: number;
  /**
   * The walk's candidate list for a graph of `size` vectors (or a fixed number): a larger graph
   * needs a longer list for the same recall (index-tuning.ts chooses it by measurement).
   */
  expansionSearch?: number | ((size: number) => number);
  /** Threads for graph insertion; 0 = one per core. Searches always run on the calling thread. */
  threads?: number;
}

export const DEFAULT_EXACT_THRESHOLD = 2048;
const DEFAULT_CONNECTIVITY = 32;
const DEFAULT_EXPANSION_ADD = 128;
const DEFAULT_EXPANSION_SEARCH = 64;

/**
 * Cosine nearest-neighbour search over entry embeddings: float16 rows (memory-mapped when the
 * index has a file; vector-rows.ts) and a usearch HNSW graph over 8-bit copies of them
 * (vector-graph.ts). `add` only appends a row: it is searchable at once, exactly, while it waits
 * in the tail (rows not yet in the graph). Tail rows move into the graph (centred on the vectors'
 * mean: vector-centre.ts says why) either in rounds built on another thread (`beginRound`, then
 * `finishRound` adopts the graph file the builder wrote: graph-builder.ts), or in place by `flush`,
 * called by the owner in chunks between its messages; never on the write path. A search walks the graph,
 * rescores its best few candidates from the rows, and scans the tail exactly; small indexes and
 * selective filters are scanned exactly from the same rows. Every score is the cosine with the
 * stored (float16) vector, whichever path found it.
 *
 * Keys are entry ids (8 hex characters = a 32-bit number). Zero vectors have no direction and
 * are not stored (`add` returns false). Not thread-safe: one owner (the tenant actor) calls it.
 */
export class VectorIndex {
  private readonly graph: VectorGraph;
  private readonly rows: VectorRows;
  /** 8-bit copies of the tail, scanned natively by unfiltered searches. */
  private readonly tail: VectorTail;
  private readonly centre: VectorCentre;
  private readonly paths: VectorSearchPaths;
  /**
   * Rows [0, graphRows) are in the graph; rows [graphRows, rows.count) are the tail, of which the
   * first `inFlight` are being built into the graph by a round (`beginRound`): searched as tail
   * rows until it is adopted, and never changed in place meanwhile (the round has their copies).
   */
  private graphRows = 0;
  private inFlight = 0;
  /** Bumped when the graph is dropped or the index closed: rounds begun before are not adopted. */
  private generation = 0;
  /**
   * Keys removed (or replaced) from graph or in-flight rows while the graph is built in rounds:
   * the graph file still holds them until the next round drops them; searches skip them meanwhile.
   */
  private readonly removals = new Set<number>();
  /** Whether the graph is built in rounds (`beginRound`); else in place (`flush`). */
  private rounds = false;
  private dirty = false;
  private closed = false;
  private readonly exactThreshold: number;
  private readonly threads: number;
  private readonly expansion: (size: number) => number;

  private constructor(
    private readonly opts: VectorIndexOptions,
    readonly dims: number,
  ) {
    this.exactThreshold = opts.exactThreshold ?? DEFAULT_EXACT_THRESHOLD;
    this.threads = opts.threads ?? 0;
    const expansion = opts.expansionSearch ?? DEFAULT_EXPANSION_SEARCH;
    this.expansion = typeof expansion === "number" ? () => expansion : expansion;
    this.graph = new VectorGraph({
      dims,
      connectivity: opts.connectivity ?? DEFAULT_CONNECTIVITY,
      expansionAdd: opts.expansionAdd ?? DEFAULT_EXPANSION_ADD,
      expansionSearch: this.expansion(0),
    });
    this.centre = new VectorCentre(dims);
    const space = opts.file ? new MappedRowSpace(rowsPathOf(opts.file), dims) : new HeapRowSpace(dims);
    this.rows = new VectorRows(dims, space);
    this.tail = new VectorTail(
      dims,
      (row) => this.rows.int8Rows(row, row + 1),
      () => this.rows.count,
    );
    this.paths = new VectorSearchPaths({
      graph: this.graph,
      rows: this.rows,
      tail: this.tail,
      centre: this.centre,
      exactThreshold: this.exactThreshold,
      expansion: this.expansion,
      graphRows: () => this.graphRows,
    });
    // A saved file describes rows that are about to change in place: it goes until the next save.
    this.rows.onOverwrite = () => {
      if (opts.file) dropMeta(opts.file);
    };
  }

  /**
   * Opens the index, mapping `file`'s graph and rows when they exist: nothing is read but the keys
   * (4 bytes a vector). A graph older than its rows (a crash between renames) keeps the rows it
   * lacks in the tail; a version 1 vectors file is converted (its graph rebuilt in the tail).
   * Throws `VectorIndexUnreadable` when the files are unusable.
   */
  static open(opts: VectorIndexOptions): VectorIndex {
    const { dims } = opts;
    if (!Number.isInteger(dims) || dims < 1) throw new Error("vector index dims must be a positive integer");
    if (opts.file) removeRoundFiles(opts.file);
    if (opts.file && hasIndexFiles(opts.file)) metaVersion(opts.file, dims);
    const index = new VectorIndex(opts, dims);
    try {
      if (opts.file && hasIndexFiles(opts.file)) index.load(opts.file);
    } catch (err) {
      index.close();
      throw err;
    }
    return index;
  }

  /** Number of vectors stored, the tail included. */
  get size(): number {
    return this.rows.count;
  }

  /** Vectors not yet in the graph (searched exactly until a flush moves them in). */
  get pending(): number {
    return this.rows.count - this.graphRows;
  }

  has(id: string): boolean {
    return SHA8.test(id) && this.rows.rowOf(keyOf(id)) !== undefined;
  }

  /**
   * Stores `vec` (normalised, as float16) under `id`, replacing any previous vector. Searchable at
   * once. Returns false, storing nothing, for a zero vector. Never touches the graph.
   */
  add(id: string, vec: Float32Array): boolean {
    this.assertOpen();
    const key = parseId(id);
    const unit = unitVector(vec, this.dims, "vector");
    if (!unit) {
      this.remove(id);
      return false;
    }
    const { bits, invNorm, int8 } = encodeHalf(unit);
    const row = this.rows.rowOf(key);
    if (row !== undefined && row >= this.graphRows + this.inFlight) {
      this.centre.remove(this.rows.vectorAt(row));
      this.rows.overwrite(row, bits, invNorm);
      this.tail.set(row, int8);
    } else {
      if (row !== undefined) this.remove(id);
      this.rows.append(key, bits, invNorm);
      this.tail.set(this.rows.count - 1, int8, true);
    }
    this.centre.add(unit);
    this.dirty = true;
    return true;
  }

  /** Moves up to `limit` tail vectors (oldest first) into the graph, in one multi-threaded batch. */
  flush(limit = Number.POSITIVE_INFINITY): void {
    this.assertOpen();
    // Built in place from here on: a round under way is dropped (its rows are still tail rows), and
    // the keys waiting for one leave the graph now.
    if (this.rounds) this.leaveRounds();
    if (this.centre.drifted(this.rows.count)) this.regraph();
    const n = Math.min(this.pending, limit);
    if (n <= 0) return;
    const from = this.graphRows;
    if (from === 0) this.centre.fix(this.rows.count);
    // The tail's 8-bit copies, not the float16 rows: the build reads no mapped page.
    const vectors = this.centre.centreRows(this.tail.copy(from, from + n));
    this.graph.add(this.rows.graphKeys(from, from + n), vectors, this.threads);
    this.graphRows += n;
    this.tail.trim(this.graphRows);
    this.dirty = true;
  }

  /**
   * The next round of the graph's build (graph-builder.ts), or undefined when there is nothing to
   * build, a round is under way, or the index has no file: up to `limit` tail rows (oldest first),
   * centred 8-bit copies, and the keys the graph file must drop. The rows stay tail rows, searched
   * exactly, until `finishRound` adopts the graph the builder wrote. From the first round on, the
   * graph is only ever mapped from its file here: built in rounds, never in place.
   */
  beginRound(limit = Number.POSITIVE_INFINITY): GraphRound | undefined {
    this.assertOpen();
    const file = this.opts.file;
    if (!file || this.inFlight > 0) return undefined;
    if (!this.rounds) this.enterRounds(file);
    if (this.centre.drifted(this.rows.count)) this.regraph();
    const n = Math.min(this.pending, limit);
    if (n <= 0 && this.removals.size === 0) return undefined;
    const from = this.graphRows;
    if (from === 0 && n > 0) this.centre.fix(this.rows.count);
    this.inFlight = n;
    const removed = [...this.removals];
    this.removals.clear();
    const input: GraphRoundInput = {
      shape: this.graph.shape,
      base: this.graph.size > 0 ? file : undefined,
      // Fresh arrays, each its own buffer: the builder's thread is handed them (transferred).
      removals: BigUint64Array.from(removed, (key) => BigInt(key)),
      keys: this.rows.graphKeys(from, from + n),
      vectors: this.centre.centreRows(this.tail.copy(from, from + n)),
      out: roundFileOf(file),
      threads: this.threads,
    };
    return { input, generation: this.generation, removals: removed };
  }

  /**
   * Adopts a round's graph (its file renamed over the graph's and mapped): the in-flight rows
   * become graph rows. A round that failed leaves them in the tail (its removals wait for the
   * next); one of an earlier generation (the graph dropped, the index closed) only has its file
   * removed.
   */
  finishRound(round: GraphRound, result: GraphRoundOutput | Error): void {
    const { out } = round.input;
    if (this.closed || round.generation !== this.generation) {
      rmSync(out, { force: true });
      return;
    }
    if (result instanceof Error) {
      rmSync(out, { force: true });
      for (const key of round.removals) this.removals.add(key);
      this.inFlight = 0;
      return;
    }
    const file = this.opts.file!;
    // The round's file is synced; the rename is not (a crash losing it leaves the older graph,
    // which the open tells by its size and repairs), so the actor's turn waits on no disk.
    renameSync(out, file);
    this.graph.view(file);
    this.graphRows += this.inFlight;
    this.inFlight = 0;
    this.tail.trim(this.graphRows);
    this.dirty = true;
  }

  /** Whether a round is being built. */
  get building(): boolean {
    return this.inFlight > 0;
  }

  /**
   * From in place to rounds: the graph in memory (changed since its file) is written first, so
   * that the file a round continues is the graph searched here.
   */
  private enterRounds(file: string): void {
    this.rounds = true;
    if (this.graph.size > 0 && this.graph.dirty) {
      this.graph.save(file);
      this.graph.view(file);
    }
  }

  /** From rounds to in place: a round under way is dropped, and the keys waiting for one go now. */
  private leaveRounds(): void {
    this.rounds = false;
    this.generation++;
    this.inFlight = 0;
    for (const key of this.removals) this.graph.remove(key);
    this.removals.clear();
  }

  /** Deletes `id`'s vector; returns whether there was one. */
  remove(id: string): boolean {
    this.assertOpen();
    const key = parseId(id);
    const row = this.rows.rowOf(key);
    if (row === undefined) return false;
    this.centre.remove(this.rows.vectorAt(row));
    const bound = this.graphRows + this.inFlight;
    if (row < bound) {
      if (this.rounds) this.removals.add(key);
      else this.graph.remove(key);
    }
    const part = this.rows.removeFromParts(row, [this.graphRows, this.inFlight], (from, to) =>
      this.moveRow(from, to),
    );
    if (part === 0) this.graphRows--;
    else if (part === 1) this.inFlight--;
    this.rows.dropLast(key);
    this.dirty = true;
    return true;
  }

  /**
   * The `k` nearest entries to `query` by cosine similarity, best first. With `accept`, only
   * accepted ids count: the graph search widens until k are found, then falls back to an exact
   * scan, so a selective filter still gets its k best. A zero query has no neighbours.
   */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): Hit[] {
    this.assertOpen();
    const q = unitVector(query, this.dims, "query");
    if (!q || k <= 0 || this.rows.count === 0) return [];
    return this.paths.search(q, k, accept);
  }

  /** Cosine similarity of `query` with each stored id (undefined when not stored). */
  scorer(query: Float32Array): (id: string) => number | undefined {
    return this.paths.scorer(unitVector(query, this.dims, "query"));
  }

  /** The stored (unit-length) vector of `id`, or undefined when none is stored. */
  vectorOf(id: string): Float32Array | undefined {
    if (!SHA8.test(id)) return undefined;
    const row = this.rows.rowOf(keyOf(id));
    return row === undefined ? undefined : this.rows.vectorAt(row);
  }

  /**
   * Makes the files describe the index: rows synced, then `.vectors`, then the graph if it changed
   * (each atomically). Tail vectors are saved as the tail: a shutdown never waits on graph
   * insertion. No-op if unchanged.
   */
  save(): void {
    this.assertOpen();
    const file = this.opts.file;
    if (!file || !this.dirty) return;
    this.rows.space.sync();
    const { keys, norms } = this.rows.columns();
    const meta = { keys, norms, graphRows: this.graphRows, graphSize: this.graph.size };
    writeMeta(file, this.dims, { ...meta, centre: this.centre.state });
    this.graph.save(file);
    this.rows.stable = this.rows.count;
    this.dirty = false;
  }

  /** Releases the memory and the mappings. Does not save: call `save()` first to persist. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.generation++;
    this.graph.clear();
    this.tail.clear();
    this.centre.reset();
    this.rows.release();
    this.graphRows = 0;
  }

  /** Moves a row within the rows (vector-rows.ts) and its 8-bit tail copy with it. */
  private moveRow(from: number, to: number): void {
    this.rows.moveRow(from, to);
    if (from !== to) this.tail.refresh(to);
  }

  private load(file: string): void {
    if (metaVersion(file, this.dims) === 1) {
      this.convertV1(file);
      return;
    }
    const meta = readMeta(file, this.dims);
    if (this.rows.space.rowsOnOpen < meta.keys.length) {
      throw new VectorIndexUnreadable(`${rowsPathOf(file)} holds fewer rows than ${meta.keys.length}`);
    }
    this.rows.adopt(meta.keys, meta.norms);
    this.rows.stable = this.rows.count;
    this.graphRows = meta.graphRows;
    if (!existsSync(file)) {
      this.graphRows = 0;
    } else if (meta.graphRows > 0 || meta.graphSize > 0) {
      this.graph.view(file);
      // A graph of another size than the one saved with these rows: find out which it holds.
      if (this.graph.size !== meta.graphSize) {
        this.graphRows = this.rows.partition(this.graph.contains(this.rows.graphKeys(0, this.rows.count)));
        this.tail.clear();
      }
    }
    if (this.centre.load(meta.centre, this.rows)) this.regraph();
    if (!meta.centre) this.dirty = true; // version 2: the next save writes the measured sum
    // Rows the graph lacks stay in the tail (searched exactly) until the owner flushes them.
    if (this.pending > 0) this.dirty = true;
  }

  /**
   * A vectors file of version 1 (float32 rows on the heap): its rows become float16 rows, its graph
   * (built from other 8-bit copies) goes, and the vectors wait in the tail for a new one.
   */
  private convertV1(file: string): void {
    for (const { keys, vectors } of readV1Vectors(file, this.dims)) {
      keys.forEach((key, i) => {
        const { bits, invNorm } = encodeHalf(vectors.subarray(i * this.dims, (i + 1) * this.dims));
        if (invNorm > 0 && this.rows.rowOf(key) === undefined) this.rows.append(key, bits, invNorm);
      });
    }
    this.centre.load(undefined, this.rows);
    rmSync(file, { force: true });
    this.graph.clear();
    this.dirty = true;
    this.save();
  }

  /** Drops the graph (its centre is off the vectors' mean): the rows wait in the tail for a new one. */
  private regraph(): void {
    this.graph.clear();
    this.generation++;
    this.inFlight = 0;
    this.removals.clear();
    this.graphRows = 0;
    this.tail.clear();
    this.dirty = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("vector index is closed");
  }
}
