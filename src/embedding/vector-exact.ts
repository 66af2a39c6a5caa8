import { exactSearch, type Matches, MetricKind } from "usearch";

/**
 * Rows of the native exact cosine top-k over the first `rows` rows of `data` (unit vectors,
 * row-major), best first.
 * usearch reads the dataset from the start of its ArrayBuffer whatever the view's offset, so
 * this only ever passes a view that starts at offset 0, and `query` must own its buffer.
 * One query runs on the calling thread (usearch spawns no threads for a single task).
 */
export function exactTopRows(data: Float32Array, query: Float32Array, rows: number, k: number): number[] {
  const wanted = Math.min(k, rows);
  if (wanted <= 0) return [];
  const dims = query.length;
  const dataset = new Float32Array(data.buffer, 0, rows * dims);
  const found = exactSearch(dataset, query, dims, wanted, MetricKind.Cos, 1) as Matches;
  return Array.from(found.keys, (row) => Number(row));
}
