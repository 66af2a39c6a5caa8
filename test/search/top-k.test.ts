import { describe, expect, test } from "bun:test";
import { TopK } from "../../src/search/top-k.ts";
import { seededRandom } from "./vector/synthetic-corpus.ts";

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

  test("with an order among equal scores, the kept set is the same whatever the insertion order", () => {
    const random = seededRandom(5);
    // Scores of few values: most of them tie at the cut.
    const items = Array.from({ length: 500 }, (_, ref) => ({ score: Math.floor(random() * 4), ref }));
    const best = [...items].sort((a, b) => b.score - a.score || a.ref - b.ref).slice(0, 30);
    for (const order of [items, [...items].reverse(), [...items].sort(() => random() - 0.5)]) {
      const top = new TopK(30, (a, b) => a < b);
      for (const { score, ref } of order) top.push(score, ref);
      expect(top.drain()).toEqual(best);
    }
    const tied = new TopK(1, (a, b) => a < b);
    tied.push(1, 5);
    expect([tied.admits(1, 4), tied.admits(1, 6), tied.admits(1)]).toEqual([true, false, false]);
  });
});
