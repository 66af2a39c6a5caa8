import { describe, expect, test } from "bun:test";
import { exactTopK, recall, unit } from "../../bench/recall.ts";

const DIMS = 16;

/** A reproducible pseudo-random vector (a small LCG: no wall clock, no Math.random). */
function vectorOf(seed: number): Float32Array {
  let x = seed * 2654435761;
  return Float32Array.from({ length: DIMS }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  });
}

const idOf = (i: number) => i.toString(16).padStart(8, "0");
const records = Array.from({ length: 300 }, (_, i) => ({ id: idOf(i), vector: () => vectorOf(i + 1) }));
const queries = [1000, 1001, 1002].map((s) => unit(vectorOf(s)));

/** The best 10 by a plain scan of every record. */
function bruteForce(q: Float32Array) {
  return records
    .map((r) => {
      const v = unit(r.vector());
      return { id: r.id, score: v.reduce((sum, x, i) => sum + x * q[i]!, 0) };
    })
    .sort((a, b) => b.score - a.score)
    .slice(0, 10);
}

describe("the bench's exact recall truth", () => {
  test("scanned in chunks, each query's best 10 are a plain scan's", () => {
    const truth = exactTopK(records, queries, [[], [], []], DIMS, 64);
    expect(truth.scanned).toBe(300);
    queries.forEach((q, i) => {
      const expected = bruteForce(q);
      expect(truth.best[i]!.map((h) => h.id)).toEqual(expected.map((h) => h.id));
      for (const [r, hit] of truth.best[i]!.entries()) expect(hit.score).toBeCloseTo(expected[r]!.score, 5);
    });
  });

  test("a found id is scored exactly, an id the vault lacks scores below everything", () => {
    const wanted = idOf(7);
    const truth = exactTopK(records, queries, [[wanted, "ffffffff"], [], []], DIMS, 64);
    const v = unit(vectorOf(8));
    const exact = v.reduce((sum, x, i) => sum + x * queries[0]![i]!, 0);
    expect(truth.scoreOf(0, wanted)).toBeCloseTo(exact, 6);
    expect(truth.scoreOf(0, "ffffffff")).toBe(Number.NEGATIVE_INFINITY);
  });

  test("recall counts found hits at or above the exact 10th best, ties at the cut included", () => {
    const truth = [
      [
        { id: "a", score: 0.9 },
        { id: "b", score: 0.5 },
      ],
    ];
    expect(
      recall(
        [
          [
            { id: "a", score: 0.9 },
            { id: "c", score: 0.5 },
          ],
        ],
        truth,
      ),
    ).toBe(1);
    expect(
      recall(
        [
          [
            { id: "a", score: 0.9 },
            { id: "d", score: 0.4 },
          ],
        ],
        truth,
      ),
    ).toBe(0.5);
  });
});
