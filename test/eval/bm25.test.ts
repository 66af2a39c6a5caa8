import { describe, expect, test } from "bun:test";
import { Bm25, tokenize } from "../../bench/eval/bm25.ts";

describe("the BM25 baseline", () => {
  test("tokens are lower-case words and numbers, unstemmed", () => {
    expect(tokenize("Maya: I adopted TWO dogs, Biscuit & Café-Noir in 2022!")).toEqual([
      "maya",
      "i",
      "adopted",
      "two",
      "dogs",
      "biscuit",
      "café",
      "noir",
      "in",
      "2022",
    ]);
  });

  test("scores by k1 = 1.2 and b = 0.75 with Lucene's idf", () => {
    const docs = [
      { id: "a", text: "dog dog cat" },
      { id: "b", text: "cat bird" },
      { id: "c", text: "fish" },
    ];
    const index = new Bm25(docs);
    const avg = 6 / 3;
    const idf = (df: number) => Math.log(1 + (3 - df + 0.5) / (df + 0.5));
    const term = (tf: number, len: number, df: number) =>
      (idf(df) * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / avg));
    const [first, second] = index.search("dog cat", 10);
    expect(first!.id).toBe("a");
    expect(first!.score).toBeCloseTo(term(2, 3, 1) + term(1, 3, 2), 10);
    expect(second!.id).toBe("b");
    expect(second!.score).toBeCloseTo(term(1, 2, 2), 10);
  });

  test("leaves out documents sharing no word with the query, counts a repeated query word once, keeps ties in document order", () => {
    const index = new Bm25([
      { id: "x", text: "the lisbon trip" },
      { id: "y", text: "the kyoto trip" },
      { id: "z", text: "nothing here" },
    ]);
    expect(index.search("trip trip trip", 10).map((h) => h.id)).toEqual(["x", "y"]);
    expect(index.search("trip", 10)[0]!.score).toBe(index.search("trip trip", 10)[0]!.score);
    expect(index.search("unknown words", 10)).toEqual([]);
  });

  test("prefers the shorter of two documents with the same matches, and returns at most `limit`", () => {
    const index = new Bm25([
      { id: "long", text: "beagle and a very long story about many other unrelated things" },
      { id: "short", text: "beagle puppy" },
      { id: "other", text: "beagle" },
    ]);
    expect(index.search("beagle", 2).map((h) => h.id)).toEqual(["other", "short"]);
  });
});
