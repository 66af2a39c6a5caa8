import { describe, expect, test } from "bun:test";
import { VectorTail } from "../../../src/search/vector/vector-tail.ts";
import { randomUnitVectors } from "./random-vectors.ts";

const DIMS = 16;
/** More rows than a segment (16,384), so that scans cross a segment's end. */
const ROWS = 20_000;

const int8 = (vec: Float32Array) => Int8Array.from(vec, (x) => Math.round(x * 127));
const pool = randomUnitVectors(ROWS + 10, DIMS, 41).map(int8);
let drawn = ROWS;
/** A row unlike the table's (the pool's last ones are kept for queries). */
const randomRow = () => pool[drawn++]!.slice();

function cosine(a: Int8Array, b: Int8Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < DIMS; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** A tail over `rows`, every row appended as the index appends them. */
function tailOf(rows: Int8Array[]): VectorTail {
  const tail = new VectorTail(
    DIMS,
    (row) => rows[row]!,
    () => rows.length,
  );
  for (const [row, vec] of rows.entries()) tail.set(row, vec, true);
  return tail;
}

/** The `want` rows of [from, rows.length) nearest to `q`, by a plain scan. */
function nearestByScan(rows: Int8Array[], q: Int8Array, from: number, want: number): number[] {
  return rows
    .map((vec, row) => ({ row, score: cosine(vec, q) }))
    .filter((r) => r.row >= from)
    .sort((a, b) => b.score - a.score)
    .slice(0, want)
    .map((r) => r.row);
}

describe("VectorTail: the native scan of the tail's 8-bit copies", () => {
  const rows = pool.slice(0, ROWS);
  const tail = tailOf(rows);

  test("finds the nearest rows of [from, to) wherever `from` falls in a segment", () => {
    const queries = Array.from({ length: 5 }, randomRow);
    for (const from of [0, 5, 10_000, 16_383, 16_384, 16_390, 19_990]) {
      for (const q of queries) {
        expect(tail.nearest(q, from, ROWS, 5)).toEqual(nearestByScan(rows, q, from, 5));
      }
    }
  });

  test("a row changed, or appended, after a scan is found by the next one; rows trimmed into the graph are not", () => {
    const own = rows.map((row) => row.slice());
    const t = tailOf(own);
    const from = 12_000;
    const q = randomRow();
    t.nearest(q, from, own.length, 3);
    // The shared segment's tail part was scanned once: a change to it must still be seen.
    own[12_500] = q.slice();
    t.set(12_500, own[12_500]!);
    expect(t.nearest(q, from, own.length, 1)).toEqual([12_500]);
    own.push(q.slice());
    t.set(own.length - 1, own[own.length - 1]!, true);
    expect(t.nearest(q, from, own.length, 2).sort()).toEqual([12_500, own.length - 1]);
    // The graph took rows up to 13,000: the changed row is no longer the tail's.
    t.trim(13_000);
    expect(t.nearest(q, 13_000, own.length, 1)).toEqual([own.length - 1]);
    expect(t.nearest(q, 13_000, own.length, 5)).toEqual(nearestByScan(own, q, 13_000, 5));
  });
});
