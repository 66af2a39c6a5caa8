import { describe, expect, test } from "bun:test";
import { TopK } from "../../src/embedding/top-k.ts";
import { seededRandom } from "./synthetic-corpus.ts";

describe("TopK", () => {
  test("keeps the k largest scores, best first, like a full sort", () => {
    const random = seededRandom(3);
    const scores = Array.from({ length: 1000 }, () => random());
    const top = new TopK(25);
    scores.forEach((score, ref) => {
      top.push(score, ref);
    });
    const expected = scores
      .map((score, ref) => ({ score, ref }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 25);
    expect(top.drain()).toEqual(expected);
    expect(top.size).toBe(0);
  });

  test("admits only what would enter, and handles fewer items than k", () => {
    const top = new TopK(2);
    expect(top.admits(0)).toBe(true);
    top.push(1, 1);
    top.push(3, 3);
    expect(top.admits(0.5)).toBe(false);
    expect(top.admits(2)).toBe(true);
    top.push(2, 2);
    expect(top.drain().map((x) => x.ref)).toEqual([3, 2]);
    const few = new TopK(10);
    few.push(0.5, 7);
    expect(few.drain()).toEqual([{ score: 0.5, ref: 7 }]);
    expect(new TopK(0).admits(1)).toBe(false);
  });
});
