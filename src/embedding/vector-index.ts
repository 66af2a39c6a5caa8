import { Index, MetricKind, ScalarKind } from "usearch";
import { ValidationFailed } from "../errors.ts";
import { byScoreThenId, type Hit } from "./hit.ts";
import { TopK } from "./top-k.ts";
import { exactTopRows } from "./vector-exact.ts";
import { hasIndexFiles, readIndexFiles, writeIndexFiles } from "./vector-files.ts";
import { dotAt, normalizeInPlace } from "./vector-math.ts";
import { VectorMatrix } from "./vector-matrix.ts";

export { VectorIndexUnreadable } from "./vector-files.ts";

export interface VectorIndexOptions {
  /** Index file; its vectors live beside it in `<file>.vectors`. Undefined: memory only. */
  file?: string;
  dims: number;
  /** Below this many vectors every search is exact (cheaper than a graph walk, and perfect). */
  exactThreshold?: number;
  /** Pending vectors past which `add` moves a chunk of them into the graph itself. */
  maxPending?: number;
  /** How many pending vectors `add` moves when `maxPending` is exceeded. */
  flushChunk?: number;
  /** HNSW parameters (usearch): edges per node, and candidate list sizes on insert and on search. */
  connectivity?: number;
  expansionAdd?: number;
  expansionSearch?: number;
  /** Threads for batch insertion; 0 = one per core. Searches always run on the calling thread. */
  threads?: number;
  /**
   * How the graph stores vectors (default f32). Scores never depend on it: every hit is
   * rescored from the f32 copy; a narrower type only makes the graph walk cheaper and coarser.
   */
  quantization?: "f32" | "f16" | "i8";
}

export const DEFAULT_EXACT_THRESHOLD = 2048;
const DEFAULT_MAX_PENDING = 1024;
const DEFAULT_FLUSH_CHUNK = 64;
const DEFAULT_CONNECTIVITY = 32;
const DEFAULT_EXPANSION_ADD = 128;
const DEFAULT_EXPANSION_SEARCH = 64;
// A filtered ANN search widens ×4 per round; past this many candidates a graph walk costs more
// than scanning the filter's survivors, so it falls back to an exact scan.
const MAX_ANN_CANDIDATES = 2048;
const OVERSAMPLE = 4;
/** At least this many candidates are asked of the graph, to be rescored exactly (see searchGraph). */
const MIN_RESCORE = 40;

const SHA8 = /^[0-9a-f]{8}$/;
const QUANTIZATION = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;

/**
 * Cosine nearest-neighbour search over entry embeddings: a usearch HNSW graph plus a pending
 * buffer, so that `add` is O(1) and an entry is searchable at once (pending vectors are
 * searched exactly), while graph insertion happens in batches on `flush` (called by the owning
 * actor when idle, and in small chunks by `add` when too much is pending).
 *
 * Every vector is also kept, normalised, in one growable matrix (usearch cannot hand vectors
 * back to JavaScript): exact search of small indexes, exact fallback of selective filters,
 * real scores for hybrid fusion, and the `.vectors` file that lets a restart reload instead of
 * rebuilding. This doubles vector memory (4 × dims bytes per entry, on each side).
 *
 * Keys are entry ids (8 hex characters = a 32-bit number). Zero vectors have no direction and
 * are not stored (`add` returns false). Not thread-safe: one owner (the tenant actor) calls it.
 */
export class VectorIndex {
  private graph: Index;
  private readonly rows: VectorMatrix;
  /** Rows [0, graphRows) are in the graph; rows [graphRows, rows.count) are pending. */
  private graphRows = 0;
  private dirty = false;
  private closed = false;
  private readonly exactThreshold: number;
  private readonly maxPending: number;
  private readonly flushChunk: number;
  private readonly threads: number;

  private constructor(
    private readonly opts: VectorIndexOptions,
    readonly dims: number,
  ) {
    this.exactThreshold = opts.exactThreshold ?? DEFAULT_EXACT_THRESHOLD;
    this.maxPending = Math.max(1, opts.maxPending ?? DEFAULT_MAX_PENDING);
    this.flushChunk = Math.max(1, opts.flushChunk ?? DEFAULT_FLUSH_CHUNK);
    this.threads = opts.threads ?? 0;
    this.graph = this.newGraph();
    this.rows = new VectorMatrix(dims);
  }

  /**
   * Opens the index, loading `file` (and its `.vectors`) when they exist: a restart reads them
   * back instead of re-inserting every vector. Vectors missing from a graph written before a
   * crash are re-inserted; a graph that cannot be matched with its vectors is rebuilt from them.
   * Throws `VectorIndexUnreadable` when the files are unusable.
   */
  static open(opts: VectorIndexOptions): VectorIndex {
    const { dims } = opts;
    if (!Number.isInteger(dims) || dims < 1) throw new Error("vector index dims must be a positive integer");
    const index = new VectorIndex(opts, dims);
    if (opts.file && hasIndexFiles(opts.file)) index.load(opts.file);
    return index;
  }

  /** Number of vectors stored, pending ones included. */
  get size(): number {
    return this.rows.count;
  }

  /** Vectors not yet in the graph (searched exactly until the next flush). */
  get pending(): number {
    return this.rows.count - this.graphRows;
  }

  has(id: string): boolean {
    return SHA8.test(id) && this.rows.rowOf(keyOf(id)) !== undefined;
  }

  /**
   * Stores `vec` (copied and normalised) under `id`, replacing any previous vector. Searchable at
   * once. Returns false, storing nothing, for a zero vector.
   */
  add(id: string, vec: Float32Array): boolean {
    this.assertOpen();
    const key = parseId(id);
    const unit = this.unitCopy(vec, "vector");
    if (!unit) {
      this.remove(id);
      return false;
    }
    const row = this.rows.rowOf(key);
    if (row !== undefined && row >= this.graphRows) {
      this.rows.overwrite(row, unit);
    } else {
      if (row !== undefined) this.remove(id);
      this.rows.append(key, unit);
    }
    this.dirty = true;
    if (this.pending > this.maxPending) this.flush(this.flushChunk);
    return true;
  }

  /** Moves up to `limit` pending vectors (oldest first) into the graph, in one batch. */
  flush(limit = Number.POSITIVE_INFINITY): void {
    this.assertOpen();
    const n = Math.min(this.pending, limit);
    if (n <= 0) return;
    const from = this.graphRows;
    const keys = BigUint64Array.from(this.rows.keysOf(from, from + n), (key) => BigInt(key));
    this.graph.add(keys, this.rows.copyRows(from, from + n), this.threads);
    this.graphRows += n;
    this.dirty = true;
  }

  /** Deletes `id`'s vector; returns whether there was one. */
  remove(id: string): boolean {
    this.assertOpen();
    const key = parseId(id);
    const row = this.rows.rowOf(key);
    if (row === undefined) return false;
    if (row < this.graphRows) {
      this.graph.remove(BigInt(key));
      // Keep rows partitioned: the last graph row fills the hole, the last pending row fills its place.
      this.rows.moveRow(this.graphRows - 1, row);
      this.graphRows--;
      this.rows.moveRow(this.rows.count - 1, this.graphRows);
    } else {
      this.rows.moveRow(this.rows.count - 1, row);
    }
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
    const q = this.unitCopy(query, "query");
    if (!q || k <= 0 || this.rows.count === 0) return [];
    // A native scan of everything beats a JS scan of the pending half (see exactTopRows).
    const mostlyPending = !accept && this.pending * 2 >= this.rows.count;
    if (this.rows.count < this.exactThreshold || this.graphRows === 0 || mostlyPending) {
      return this.scanRows(q, 0, this.rows.count, k, accept);
    }
    const fromGraph = accept ? this.searchGraphFiltered(q, k, accept) : this.searchGraph(q, k);
    if (this.pending === 0) return fromGraph;
    const fromPending = this.scanRows(q, this.graphRows, this.rows.count, k, accept);
    return [...fromGraph, ...fromPending].sort(byScoreThenId).slice(0, k);
  }

  /** Cosine similarity of `query` with each stored id (undefined when not stored). */
  scorer(query: Float32Array): (id: string) => number | undefined {
    const q = this.unitCopy(query, "query");
    return (id) => {
      if (!q || !SHA8.test(id)) return undefined;
      const row = this.rows.rowOf(keyOf(id));
      return row === undefined ? undefined : dotAt(q, this.rows.data, row * this.dims);
    };
  }

  /** A copy of the stored (unit-length) vector of `id`, or undefined when none is stored. */
  vectorOf(id: string): Float32Array | undefined {
    if (!SHA8.test(id)) return undefined;
    const row = this.rows.rowOf(keyOf(id));
    return row === undefined ? undefined : this.rows.data.slice(row * this.dims, (row + 1) * this.dims);
  }

  /** Writes the index atomically (temporary files, then rename), after a flush. No-op if unchanged. */
  save(): void {
    this.assertOpen();
    const file = this.opts.file;
    if (!file || !this.dirty) return;
    // Pending vectors are saved as pending (the vectors file holds every row): a shutdown never
    // waits on graph insertion, and the owner inserts them after the next open.
    writeIndexFiles(file, this.graph, this.rows);
    this.dirty = false;
  }

  /** Releases the memory (the graph is native). Does not save: call `save()` first to persist. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.graph = this.newGraph();
    this.rows.release();
    this.graphRows = 0;
  }

  /**
   * The graph's best candidates, rescored exactly from the float32 rows. It is asked for at least
   * MIN_RESCORE: its own ranking is coarse (quantized), and the true best `k` are almost always
   * among its best few dozen, which the exact scores then put in order.
   */
  private searchGraph(q: Float32Array, k: number): Hit[] {
    const wanted = Math.min(Math.max(k, MIN_RESCORE), this.graphRows);
    const found = this.graph.search(q, wanted, 1);
    const hits: Hit[] = [];
    for (let i = 0; i < found.keys.length; i++) {
      const row = this.rows.rowOf(Number(found.keys[i]!));
      if (row !== undefined) hits.push(this.hitAt(q, row));
    }
    return hits.sort(byScoreThenId).slice(0, k);
  }

  private searchGraphFiltered(q: Float32Array, k: number, accept: (id: string) => boolean): Hit[] {
    let wanted = Math.min(k * OVERSAMPLE, this.graphRows);
    for (;;) {
      const candidates = this.searchGraph(q, wanted);
      const hits = candidates.filter((hit) => accept(hit.id));
      if (hits.length >= k) return hits.slice(0, k);
      // Every graph vector seen: the filter simply accepts fewer than k.
      if (candidates.length >= this.graphRows) return hits;
      if (wanted >= this.graphRows || wanted * OVERSAMPLE > MAX_ANN_CANDIDATES) break;
      wanted = Math.min(wanted * OVERSAMPLE, this.graphRows);
    }
    return this.scanRows(q, 0, this.graphRows, k, accept);
  }

  /** Exact search of rows [from, to): native without a filter, else a scan asking `accept` first. */
  private scanRows(
    q: Float32Array,
    from: number,
    to: number,
    k: number,
    accept?: (id: string) => boolean,
  ): Hit[] {
    if (!accept && from === 0) {
      return exactTopRows(this.rows.data, q, to, k)
        .map((row) => this.hitAt(q, row))
        .sort(byScoreThenId);
    }
    const top = new TopK(k);
    for (let row = from; row < to; row++) {
      if (accept && !accept(idOf(this.rows.keyAt(row)))) continue;
      top.push(dotAt(q, this.rows.data, row * this.dims), row);
    }
    return top
      .drain()
      .map(({ score, ref }) => ({ id: idOf(this.rows.keyAt(ref)), score }))
      .sort(byScoreThenId);
  }

  /**
   * Every path (graph, native scan, JS scan) reports the same score for the same pair: the dot
   * product of the stored unit vectors, so a result does not change score when a flush moves it.
   */
  private hitAt(q: Float32Array, row: number): Hit {
    return { id: idOf(this.rows.keyAt(row)), score: dotAt(q, this.rows.data, row * this.dims) };
  }

  private load(file: string): void {
    const loaded = readIndexFiles(file, this.dims, () => this.newGraph());
    this.graph = loaded.graph;
    this.rows.adopt(loaded.keys, loaded.vectors);
    this.graphRows = this.rows.partition(loaded.inGraph);
    if (this.graph.size() !== this.graphRows) {
      // The graph holds keys its vectors file does not: trust the vectors, rebuild the graph.
      this.graph = this.newGraph();
      this.graphRows = 0;
    }
    // Rows the graph lacks stay pending (searched exactly) until the owner flushes them.
    if (this.pending > 0) this.dirty = true;
  }

  private newGraph(): Index {
    return new Index({
      dimensions: this.dims,
      metric: MetricKind.Cos,
      quantization: QUANTIZATION[this.opts.quantization ?? "f32"],
      connectivity: this.opts.connectivity ?? DEFAULT_CONNECTIVITY,
      expansion_add: this.opts.expansionAdd ?? DEFAULT_EXPANSION_ADD,
      expansion_search: this.opts.expansionSearch ?? DEFAULT_EXPANSION_SEARCH,
      multi: false,
    });
  }

  /** A normalised copy (usearch ignores subarray offsets, so never hand it a view), or undefined if zero. */
  private unitCopy(vec: Float32Array, what: string): Float32Array | undefined {
    if (vec.length !== this.dims) {
      const message = `${what} has ${vec.length} dimensions, expected ${this.dims}`;
      throw new ValidationFailed(message, [{ path: "/embedding", message }]);
    }
    const copy = Float32Array.from(vec);
    return normalizeInPlace(copy) ? copy : undefined;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("vector index is closed");
  }
}

/**
 * Exact cosine top-k over a small candidate set (for example the entries a tag filter left),
 * best first. Pure: candidates need not be normalised; zero vectors are skipped.
 */
export function searchExact(
  query: Float32Array,
  candidates: Iterable<[string, Float32Array]>,
  k: number,
): Hit[] {
  const q = Float32Array.from(query);
  if (!normalizeInPlace(q) || k <= 0) return [];
  const hits: Hit[] = [];
  for (const [id, vec] of candidates) {
    if (vec.length !== q.length) continue;
    const norm = Math.sqrt(dotAt(vec, vec, 0));
    if (norm > 0) hits.push({ id, score: dotAt(q, vec, 0) / norm });
  }
  return hits.sort(byScoreThenId).slice(0, k);
}

function parseId(id: string): number {
  if (!SHA8.test(id)) {
    const message = `entry id must be 8 lower-case hex characters`;
    throw new ValidationFailed(message, [{ path: "/id", message }]);
  }
  return keyOf(id);
}

function keyOf(id: string): number {
  return Number.parseInt(id, 16);
}

function idOf(key: number): string {
  return key.toString(16).padStart(8, "0");
}
