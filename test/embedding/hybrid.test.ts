import { describe, expect, test } from "bun:test";
import { fuse } from "../../src/embedding/hybrid.ts";

describe("fuse", () => {
  test("weights the clamped cosine 0.6 and the normalised BM25 0.4", () => {
    const fused = fuse(
      [
        { id: "a", score: 0.9 },
        { id: "b", score: 0.5 },
      ],
      [
        { id: "b", score: 8 },
        { id: "a", score: 2 },
      ],
    );
    expect(fused.map((h) => h.id)).toEqual(["b", "a"]);
    expect(fused[0]).toEqual({ id: "b", score: 0.6 * 0.5 + 0.4 * 1, scores: { vector: 0.5, lexical: 1 } });
    expect(fused[1]!.score).toBeCloseTo(0.6 * 0.9 + 0.4 * 0.25, 12);
    expect(fused[1]!.scores).toEqual({ vector: 0.9, lexical: 0.25 });
  });

  test("a document found by one side only scores 0 on the other", () => {
    const fused = fuse([{ id: "v", score: 0.8 }], [{ id: "l", score: 3 }]);
    expect(fused).toEqual([
      { id: "v", score: 0.6 * 0.8, scores: { vector: 0.8, lexical: 0 } },
      { id: "l", score: 0.4, scores: { vector: 0, lexical: 1 } },
    ]);
  });

  test("real scores for the missing side are used when given", () => {
    const fused = fuse([{ id: "v", score: 0.8 }], [{ id: "l", score: 4 }], {
      vectorScoreOf: (id) => (id === "l" ? 0.7 : undefined),
      lexicalScoreOf: (id) => (id === "v" ? 2 : undefined),
    });
    expect(fused.map((h) => h.id)).toEqual(["l", "v"]);
    expect(fused[0]!.scores).toEqual({ vector: 0.7, lexical: 1 });
    expect(fused[1]!.scores).toEqual({ vector: 0.8, lexical: 0.5 });
  });

  test("negative cosines count as 0 and scores stay in [0, 1]", () => {
    const fused = fuse([{ id: "x", score: -0.4 }], [{ id: "x", score: 1 }]);
    expect(fused[0]).toEqual({ id: "x", score: 0.4, scores: { vector: 0, lexical: 1 } });
  });

  test("without text only the vector side counts, and vice versa", () => {
    const vectorOnly = fuse([{ id: "a", score: 0.3 }], [{ id: "b", score: 9 }], { useLexical: false });
    expect(vectorOnly).toEqual([{ id: "a", score: 0.3, scores: { vector: 0.3, lexical: 0 } }]);
    const lexicalOnly = fuse([{ id: "a", score: 0.3 }], [{ id: "b", score: 9 }], { useVector: false });
    expect(lexicalOnly).toEqual([{ id: "b", score: 1, scores: { vector: 0, lexical: 1 } }]);
  });

  test("ties are broken by id, and limit keeps the best", () => {
    const hits = ["d", "b", "c", "a"].map((id) => ({ id, score: 0.5 }));
    expect(fuse(hits, []).map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
    expect(fuse(hits, [], { limit: 2 }).map((h) => h.id)).toEqual(["a", "b"]);
  });

  test("custom weights are normalised to sum to 1", () => {
    const [hit] = fuse([{ id: "a", score: 1 }], [{ id: "a", score: 5 }], {
      vectorWeight: 3,
      lexicalWeight: 1,
    });
    expect(hit!.score).toBeCloseTo(1, 12);
    const [half] = fuse([{ id: "a", score: 0.5 }], [], { vectorWeight: 1, lexicalWeight: 1 });
    expect(half!.score).toBeCloseTo(0.25, 12);
  });

  test("no hits, no results", () => {
    expect(fuse([], [])).toEqual([]);
  });
});
