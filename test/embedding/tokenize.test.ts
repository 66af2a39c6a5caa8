import { describe, expect, test } from "bun:test";
import { tokenize } from "../../src/embedding/tokenize.ts";

describe("tokenize", () => {
  test("lower-cases and splits on anything that is not a letter or digit", () => {
    expect(tokenize("Deal WON: ACME-Corp, $12,500 (Q3)!")).toEqual([
      "deal",
      "won",
      "acme",
      "corp",
      "12",
      "500",
      "q3",
    ]);
  });

  test("keeps Unicode letters and combining marks inside words", () => {
    expect(tokenize("Café naïve 日本語 हिन्दी")).toEqual(["café", "naïve", "日本語", "हिन्दी"]);
  });

  test("NFKC-normalises so compatibility forms match plain ones", () => {
    expect(tokenize("ＦＯＯ ﬁle ①")).toEqual(["foo", "file", "1"]);
    // Decomposed "é" (e + U+0301) becomes the same token as the precomposed one.
    expect(tokenize("cafe\u0301")).toEqual(tokenize("café"));
  });

  test("text without words has no tokens", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize("  ...!? 🙂 ")).toEqual([]);
  });
});
