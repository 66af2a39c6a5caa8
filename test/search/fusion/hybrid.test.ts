import { describe, expect, test } from "bun:test";
import {
  DEFAULT_FUSION,
  FUSION_PROFILES,
  type FusionProfile,
} from "../../../src/search/fusion/fusion-profile.ts";
import { fuse } from "../../../src/search/fusion/hybrid.ts";

/** Raw cosine, no gate: the arithmetic of the weights alone. */
const plain = (vectorWeight: number): FusionProfile => ({
  vectorWeight,
  cosineCentre: 0,
  minCosine: Number.NEGATIVE_INFINITY,
});

describe("fuse: normalisation", () => {
  test("weighs the cosine w and BM25 divided by the best BM25 (1 − w)", () => {
    const fused = fuse(
      [
        { id: "a", score: 0.9 },
        { id: "b", score: 0.5 },
      ],
      [
        { id: "b", score: 8 },
        { id: "a", score: 2 },
      ],
      { profile: plain(0.6) },
    );
    expect(fused.map((h) => h.id)).toEqual(["b", "a"]);
    expect(fused[0]).toEqual({ id: "b", score: 0.6 * 0.5 + 0.4 * 1, scores: { vector: 0.5, lexical: 1 } });
    expect(fused[1]!.score).toBeCloseTo(0.6 * 0.9 + 0.4 * 0.25, 12);
    expect(fused[1]!.scores).toEqual({ vector: 0.9, lexical: 0.25 });
  });

  test("cosines are re-centred on the profile's level for unrelated texts, clamped to [0, 1]", () => {
    const profile = { vectorWeight: 0.5, cosineCentre: 0.2, minCosine: 0 };
    const fused = fuse(
      [
        { id: "related", score: 0.6 },
        { id: "unrelated", score: 0.2 },
        { id: "opposed", score: -0.3 },
      ],
      [{ id: "related", score: 3 }],
      { profile },
    );
    const vectorOf = (id: string) => fused.find((h) => h.id === id)!.scores.vector;
    expect(vectorOf("related")).toBeCloseTo((0.6 - 0.2) / 0.8, 12);
    expect(vectorOf("unrelated")).toBe(0);
    expect(vectorOf("opposed")).toBe(0);
    for (const hit of fused)
      expect(hit.score).toBeCloseTo(0.5 * hit.scores.vector + 0.5 * hit.scores.lexical, 12);
  });

  test("a document found by one side only scores 0 on the other", () => {
    const fused = fuse([{ id: "v", score: 0.8 }], [{ id: "l", score: 3 }], { profile: plain(0.6) });
    expect(fused).toEqual([
      { id: "v", score: 0.6 * 0.8, scores: { vector: 0.8, lexical: 0 } },
      { id: "l", score: 0.4, scores: { vector: 0, lexical: 1 } },
    ]);
  });

  test("real scores for the missing side are used when given", () => {
    const fused = fuse([{ id: "v", score: 0.8 }], [{ id: "l", score: 4 }], {
      profile: plain(0.6),
      vectorScoreOf: (id) => (id === "l" ? 0.7 : undefined),
      lexicalScoreOf: (id) => (id === "v" ? 2 : undefined),
    });
    expect(fused.map((h) => h.id)).toEqual(["l", "v"]);
    expect(fused[0]!.scores).toEqual({ vector: 0.7, lexical: 1 });
    expect(fused[1]!.scores).toEqual({ vector: 0.8, lexical: 0.5 });
  });

  test("without text only the vector side counts, and vice versa", () => {
    const vectorOnly = fuse([{ id: "a", score: 0.3 }], [{ id: "b", score: 9 }], {
      profile: plain(0.1),
      useLexical: false,
    });
    expect(vectorOnly).toEqual([{ id: "a", score: 0.3, scores: { vector: 0.3, lexical: 0 } }]);
    const lexicalOnly = fuse([{ id: "a", score: 0.3 }], [{ id: "b", score: 9 }], { useVector: false });
    expect(lexicalOnly).toEqual([{ id: "b", score: 1, scores: { vector: 0, lexical: 1 } }]);
  });

  test("ties are broken by id, and limit keeps the best", () => {
    const hits = ["d", "b", "c", "a"].map((id) => ({ id, score: 0.5 }));
    expect(fuse(hits, []).map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
    expect(fuse(hits, [], { limit: 2 }).map((h) => h.id)).toEqual(["a", "b"]);
  });

  test("no hits, no results", () => {
    expect(fuse([], [])).toEqual([]);
  });
});

describe("fuse: profiles", () => {
  // Two candidates: "lex" holds the query's words, "vec" is the vector side's favourite.
  const vectorHits = [
    { id: "vec", score: 0.75 },
    { id: "lex", score: 0.35 },
  ];
  const lexicalHits = [{ id: "lex", score: 6 }];
  const winner = (profile: FusionProfile) => fuse(vectorHits, lexicalHits, { profile })[0]!.id;

  test("hash weighs little: the exact lexical match wins over the closest hashing vector", () => {
    expect(FUSION_PROFILES.hash.vectorWeight).toBeLessThanOrEqual(0.2);
    expect(winner(FUSION_PROFILES.hash)).toBe("lex");
  });

  test("local weighs most: a clearly closer meaning wins over a shared word", () => {
    expect(FUSION_PROFILES.local.vectorWeight).toBeGreaterThan(0.5);
    expect(winner(FUSION_PROFILES.local)).toBe("vec");
  });

  test("each profile's weights sum to 1, and the default is an even share", () => {
    for (const profile of Object.values(FUSION_PROFILES)) {
      const [hit] = fuse([{ id: "a", score: 1 }], [{ id: "a", score: 5 }], { profile });
      expect(hit!.score).toBeCloseTo(1, 12);
    }
    expect(DEFAULT_FUSION.vectorWeight).toBe(0.5);
    const [half] = fuse([{ id: "a", score: 1 }], [{ id: "b", score: 5 }], {});
    expect(half!.score).toBeCloseTo(0.5, 12);
  });
});

describe("fuse: no vector evidence", () => {
  const profile = { vectorWeight: 0.7, cosineCentre: 0.2, minCosine: 0.3 };

  test("when no candidate's cosine reaches minCosine, BM25 ranks alone", () => {
    const fused = fuse(
      [
        { id: "noise", score: 0.29 },
        { id: "word", score: 0.1 },
      ],
      [{ id: "word", score: 2 }],
      { profile },
    );
    expect(fused.map((h) => h.id)).toEqual(["word", "noise"]);
    expect(fused[0]!.score).toBe(1);
    // The vector part is still reported, but weighs nothing.
    expect(fused[1]).toEqual({ id: "noise", score: 0, scores: { vector: expect.any(Number), lexical: 0 } });
  });

  test("one candidate with evidence brings the vector side back", () => {
    const fused = fuse(
      [
        { id: "close", score: 0.6 },
        { id: "word", score: 0.1 },
      ],
      [{ id: "word", score: 2 }],
      { profile },
    );
    expect(fused[0]!.id).toBe("close");
    expect(fused[0]!.score).toBeCloseTo(0.7 * 0.5, 12);
    expect(fused[1]!.score).toBeCloseTo(0.3, 12);
  });
});
