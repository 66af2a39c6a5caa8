import { byScoreThenId, type Hit } from "../hit.ts";
import { TopK } from "../top-k.ts";
import { rescoreCount, type VectorCentre } from "./vector-centre.ts";
import { quantizeInt8 } from "./vector-codec.ts";
import type { VectorGraph } from "./vector-graph.ts";
import { idOf, keyOf, SHA8 } from "./vector-keys.ts";
import type { VectorRows } from "./vector-rows.ts";
import type { VectorTail } from "./vector-tail.ts";

// A filtered ANN search widens ×4 per round; past this many candidates a graph walk costs more
// than scanning the filter's survivors, so it falls back to an exact scan.
const MAX_ANN_CANDIDATES = 2048;
const OVERSAMPLE = 4;

/** What a vector index's searches read (vector-index.ts owns them all). */
export interface SearchedParts {
  graph: VectorGraph;
  rows: VectorRows;
  tail: VectorTail;
  centre: VectorCentre;
  /** Below this many vectors every search is exact. */
  exactThreshold: number;
  /** The walk's candidate list for a graph of `size` vectors. */
  expansion: (size: number) => number;
  /** Rows [0, graphRows()) are in the graph, the rest are the tail. */
  graphRows: () => number;
}

/**
 * The search paths of a vector index (vector-index.ts): the graph's walk, its candidates rescored
 * from the rows, the tail's exact scan, and an exact scan of the rows for small indexes and
 * selective filters. Reads only; the index keeps the parts consistent between its calls.
 */
export class VectorSearchPaths {
  private readonly graph: VectorGraph;
  private readonly rows: VectorRows;
  private readonly tail: VectorTail;
  private readonly centre: VectorCentre;
  private readonly exactThreshold: number;
  private readonly expansion: (size: number) => number;
  private readonly graphRows: () => number;

  constructor(parts: SearchedParts) {
    this.graph = parts.graph;
    this.rows = parts.rows;
    this.tail = parts.tail;
    this.centre = parts.centre;
    this.exactThreshold = parts.exactThreshold;
    this.expansion = parts.expansion;
    this.graphRows = parts.graphRows;
  }

  search(q: Float32Array, k: number, accept?: (id: string) => boolean): Hit[] {
    const graphRows = this.graphRows();
    if (this.rows.count < this.exactThreshold && graphRows > 0) {
      return this.scanRows(q, 0, this.rows.count, k, accept);
    }
    const q8 = quantizeInt8(q);
    if (graphRows === 0) return this.searchTail(q, q8, k, accept);
    const g8 = this.centre.query(q);
    const fromGraph = accept ? this.searchGraphFiltered(q, g8, k, accept) : this.searchGraph(q, g8, k);
    if (this.rows.count === graphRows) return fromGraph;
    const seen = new Set(fromGraph.map((hit) => hit.id));
    const fromTail = this.searchTail(q, q8, k, accept).filter((hit) => !seen.has(hit.id));
    return [...fromGraph, ...fromTail].sort(byScoreThenId).slice(0, k);
  }

  /**
   * The tail's best k. Unfiltered: a native scan of its 8-bit copies proposes twice the rows the
   * graph path rescores, and those are rescored from the float16 rows (the true best k are among
   * them: the copies' order differs from the rows' only among near-ties). Filtered: a scan of the
   * rows the filter accepts.
   */
  private searchTail(q: Float32Array, q8: Int8Array, k: number, accept?: (id: string) => boolean): Hit[] {
    const from = this.graphRows();
    const to = this.rows.count;
    if (accept) return this.scanRows(q, from, to, k, accept);
    const want = rescoreCount(k) * 2;
    return this.rescored(q, this.tail.nearest(q8, from, to, want), want, k);
  }

  /**
   * The walk's candidates (a list of `expansion(size)`, at least k), of which the first
   * `rescoreCount(k)` still in the graph are rescored from the rows.
   */
  private searchGraph(q: Float32Array, q8: Int8Array, k: number): Hit[] {
    const wanted = Math.max(k, this.expansion(this.graphRows()));
    const { rows } = this.graphCandidates(q8, wanted);
    return this.rescored(q, rows, this.centre.rescored(rows.length, k), k);
  }

  private searchGraphFiltered(
    q: Float32Array,
    q8: Int8Array,
    k: number,
    accept: (id: string) => boolean,
  ): Hit[] {
    let wanted = Math.max(k * OVERSAMPLE, this.expansion(this.graphRows()));
    for (;;) {
      const { rows, seen } = this.graphCandidates(q8, wanted, accept);
      if (rows.length >= k) return this.rescored(q, rows, this.centre.rescored(rows.length, k), k);
      // Every graph vector seen: the filter simply accepts fewer than k.
      if (seen >= this.graphRows()) return this.rescored(q, rows, rows.length, k);
      if (wanted >= this.graphRows() || wanted * OVERSAMPLE > MAX_ANN_CANDIDATES) break;
      wanted = Math.min(wanted * OVERSAMPLE, this.graphRows());
    }
    return this.scanRows(q, 0, this.graphRows(), k, accept);
  }

  /**
   * Rows of the graph's hits, nearest first, that are still graph rows (a mapped graph may hold
   * keys since removed, or replaced and now in the tail) and accepted; `seen` counts every hit.
   */
  private graphCandidates(
    q8: Int8Array,
    wanted: number,
    accept?: (id: string) => boolean,
  ): { rows: number[]; seen: number } {
    const keys = this.graph.search(q8, wanted);
    const rows: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const key = Number(keys[i]!);
      const row = this.rows.rowOf(key);
      if (row === undefined || row >= this.graphRows()) continue;
      if (accept && !accept(idOf(key))) continue;
      rows.push(row);
    }
    return { rows, seen: keys.length };
  }

  private rescored(q: Float32Array, rows: number[], count: number, k: number): Hit[] {
    return rows
      .slice(0, count)
      .map((row) => this.hitAt(q, row))
      .sort(byScoreThenId)
      .slice(0, k);
  }

  /** Exact search of rows [from, to), asking `accept` before scoring. */
  private scanRows(
    q: Float32Array,
    from: number,
    to: number,
    k: number,
    accept?: (id: string) => boolean,
  ): Hit[] {
    const top = new TopK(k);
    for (let row = from; row < to; row++) {
      if (accept && !accept(idOf(this.rows.keyAt(row)))) continue;
      top.push(this.rows.score(q, row), row);
    }
    return top
      .drain()
      .map(({ score, ref }) => ({ id: idOf(this.rows.keyAt(ref)), score }))
      .sort(byScoreThenId);
  }

  private hitAt(q: Float32Array, row: number): Hit {
    return { id: idOf(this.rows.keyAt(row)), score: this.rows.score(q, row) };
  }

  /** Cosine similarity of the unit vector `q` with each stored id (undefined when not stored or no `q`). */
  scorer(q: Float32Array | undefined): (id: string) => number | undefined {
    return (id) => {
      if (!q || !SHA8.test(id)) return undefined;
      const row = this.rows.rowOf(keyOf(id));
      return row === undefined ? undefined : this.rows.score(q, row);
    };
  }
}
