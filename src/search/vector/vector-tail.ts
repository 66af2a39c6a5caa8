import { exactSearch, type Matches, MetricKind } from "usearch";

/** Rows per segment: each is its own buffer (usearch reads a dataset from its buffer's start). */
const SEGMENT_ROWS = 16_384;

/**
 * 8-bit copies of the tail's rows (the vectors not yet in the graph), so that a search scans the
 * tail natively instead of decoding float16 rows in JavaScript (~5× faster). Kept in segments of
 * SEGMENT_ROWS absolute rows; segments wholly inside the graph are dropped as it grows, so the
 * memory follows the tail (384 bytes a vector at 384 dims), not the index. A segment missing when
 * needed (after a drop, or after rows moved below the tail) is made again from the rows.
 */
export class VectorTail {
  private segments: Array<Int8Array | undefined> = [];
  /**
   * The tail's part of the segment the graph's last rows share, as its own buffer from the
   * tail's first row (usearch scans a dataset from its buffer's start): kept while the graph
   * does not grow, written through by `set`, so a search does not copy it each time.
   */
  private window: { segment: number; from: number; source: Int8Array; data: Int8Array } | undefined;

  constructor(
    private readonly dims: number,
    /** The 8-bit copy of a stored row. */
    private readonly int8Of: (row: number) => Int8Array,
    /** How many rows are stored. */
    private readonly count: () => number,
  ) {}

  /**
   * Row `row` now holds `vec`. A new last row (`append`) starts its segment if needed, so a tail
   * grown by writes is ready to scan; elsewhere a missing segment stays missing until scanned.
   */
  set(row: number, vec: Int8Array, append = false): void {
    const s = Math.floor(row / SEGMENT_ROWS);
    if (append && !this.segments[s] && row % SEGMENT_ROWS === 0) {
      this.segments[s] = new Int8Array(SEGMENT_ROWS * this.dims);
    }
    this.segments[s]?.set(vec, (row % SEGMENT_ROWS) * this.dims);
    const w = this.window;
    if (w?.segment === s && row >= w.from) w.data.set(vec, (row - w.from) * this.dims);
  }

  /** Row `row` changed in the rows: its copy follows. */
  refresh(row: number): void {
    if (this.segments[Math.floor(row / SEGMENT_ROWS)]) this.set(row, this.int8Of(row));
  }

  /** Rows [from, to) as one fresh Int8Array (offset 0), for the graph; missing segments are made. */
  copy(from: number, to: number): Int8Array {
    const out = new Int8Array((to - from) * this.dims);
    for (let row = from; row < to; ) {
      const s = Math.floor(row / SEGMENT_ROWS);
      const first = s * SEGMENT_ROWS;
      const end = Math.min(to, first + SEGMENT_ROWS);
      const segment = this.segment(s, row);
      out.set(
        segment.subarray((row - first) * this.dims, (end - first) * this.dims),
        (row - from) * this.dims,
      );
      row = end;
    }
    return out;
  }

  /** Rows below `from` are in the graph: their whole segments go. */
  trim(from: number): void {
    const keep = Math.floor(from / SEGMENT_ROWS);
    for (let s = 0; s < Math.min(keep, this.segments.length); s++) this.segments[s] = undefined;
    if (this.window?.from !== from) this.window = undefined;
  }

  clear(): void {
    this.segments = [];
    this.window = undefined;
  }

  /**
   * The `want` nearest rows in [from, to) to `q8` by the 8-bit copies' cosine, nearest first (the
   * caller rescores them from the rows).
   */
  nearest(q8: Int8Array, from: number, to: number, want: number): number[] {
    const found: Array<{ row: number; distance: number }> = [];
    for (let s = Math.floor(from / SEGMENT_ROWS); s * SEGMENT_ROWS < to; s++) {
      const first = s * SEGMENT_ROWS;
      const rows = Math.min(SEGMENT_ROWS, to - first);
      const segment = this.segment(s, from);
      // Only the tail's rows of the segment are scanned: a segment starting below the tail (the
      // graph's last rows share it) is scanned from its window (the tail's part, its own buffer).
      // A short tail behind 10,000 graph rows then costs its own rows, not the segment's.
      const skipped = Math.max(0, from - first);
      const data =
        skipped > 0
          ? this.windowOf(s, from, segment).subarray(0, (rows - skipped) * this.dims)
          : new Int8Array(segment.buffer, 0, rows * this.dims);
      const count = Math.min(rows - skipped, want);
      const matches = exactSearch(data, q8, this.dims, count, MetricKind.Cos, 1) as Matches;
      for (let i = 0; i < matches.keys.length; i++) {
        found.push({ row: first + skipped + Number(matches.keys[i]!), distance: matches.distances[i]! });
      }
    }
    return found
      .sort((a, b) => a.distance - b.distance)
      .slice(0, want)
      .map((f) => f.row);
  }

  /** Segment `s`'s rows from `from` on, as a buffer of their own (kept: see `window`). */
  private windowOf(s: number, from: number, source: Int8Array): Int8Array {
    const w = this.window;
    if (w?.segment === s && w.from === from && w.source === source) return w.data;
    const data = source.slice((from - s * SEGMENT_ROWS) * this.dims);
    this.window = { segment: s, from, source, data };
    return data;
  }

  /** Segment `s`, made from the rows if missing: every stored row of it from `from` on. */
  private segment(s: number, from: number): Int8Array {
    let segment = this.segments[s];
    if (!segment) {
      segment = new Int8Array(SEGMENT_ROWS * this.dims);
      const first = s * SEGMENT_ROWS;
      for (let row = Math.max(first, from); row < Math.min(this.count(), first + SEGMENT_ROWS); row++) {
        segment.set(this.int8Of(row), (row - first) * this.dims);
      }
      this.segments[s] = segment;
    }
    return segment;
  }
}
