import { describe, expect, test } from "bun:test";
import { HashEmbedder } from "../../../src/embedding/hash-embedder.ts";
import { FUSION_PROFILES } from "../../../src/search/fusion/fusion-profile.ts";
import { type HybridIndexes, searchHybrid } from "../../../src/search/fusion/hybrid-search.ts";
import { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";
import { VectorIndex } from "../../../src/search/vector/vector-index.ts";

const embedder = new HashEmbedder();
const notes: Record<string, string> = {
  "00000001": "Refund approved for the damaged shipment to Acme",
  "00000002": "Quarterly planning meeting for the sales team",
  "00000003": "Shipment delayed at customs, customer informed",
  "00000004": "Refund policy agreed for enterprise customers",
  "00000005": "Office party lunch menu",
};

function indexes(): HybridIndexes {
  const vectors = VectorIndex.open({ dims: embedder.dims });
  const lexical = new LexicalIndex();
  for (const [id, text] of Object.entries(notes)) {
    vectors.add(id, embedder.embedSync(text));
    lexical.add(id, text);
  }
  return { vectors, lexical: () => lexical };
}

describe("searchHybrid", () => {
  const both = indexes();

  test("fuses both sides, giving every result its real score on each", () => {
    const text = "refund damaged shipment";
    const profile = FUSION_PROFILES.hash;
    const hits = searchHybrid(both, { text, vector: embedder.embedSync(text), k: 5 }, { profile });
    expect(hits[0]?.id).toBe("00000001");
    expect(hits[0]!.scores.lexical).toBe(1);
    // The two notes sharing one word each tie exactly (same length, same idf): id decides.
    expect(hits.slice(1, 3).map((h) => h.id)).toEqual(["00000003", "00000004"]);
    expect(hits[1]!.score).toBe(hits[2]!.score);
    const cosine = both.vectors.scorer(embedder.embedSync(text));
    for (const hit of hits) {
      expect(hit.scores.vector).toBeCloseTo(cosine(hit.id)!, 6);
      // hash's profile: raw cosines (centre 0), a tenth of the score.
      expect(hit.score).toBeCloseTo(0.1 * hit.scores.vector + 0.9 * hit.scores.lexical, 12);
    }
  });

  test("a vector alone ranks by cosine; text alone by BM25", () => {
    const vectorOnly = searchHybrid(both, { vector: embedder.embedSync(notes["00000002"]!), k: 2 });
    expect(vectorOnly[0]).toMatchObject({ id: "00000002", scores: { lexical: 0 } });
    expect(vectorOnly[0]!.score).toBeCloseTo(1, 5);
    const textOnly = searchHybrid(both, { text: "delayed", k: 2 });
    expect(textOnly).toEqual([{ id: "00000003", score: 1, scores: { vector: 0, lexical: 1 } }]);
  });

  test("accept filters both sides", () => {
    const text = "refund shipment";
    const hits = searchHybrid(both, {
      text,
      vector: embedder.embedSync(text),
      k: 5,
      accept: (id) => id !== "00000001",
    });
    expect(hits.map((h) => h.id)).not.toContain("00000001");
    expect(hits.slice(0, 2).map((h) => h.id)).toEqual(["00000003", "00000004"]);
  });

  test("documents sharing nothing with the query are not results", () => {
    const text = "refund shipment";
    const ids = searchHybrid(both, { text, vector: embedder.embedSync(text), k: 5 }).map((h) => h.id);
    expect(ids).not.toContain("00000005");
  });

  test("no words and no direction: nothing to search", () => {
    expect(searchHybrid(both, { text: "  ?! ", vector: new Float32Array(embedder.dims), k: 3 })).toEqual([]);
    expect(searchHybrid(both, { k: 3 })).toEqual([]);
  });
});
