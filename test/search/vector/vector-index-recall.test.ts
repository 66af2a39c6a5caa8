import { describe, expect, test } from "bun:test";
import { HashEmbedder } from "../../../src/embedding/hash-embedder.ts";
import { VectorIndex } from "../../../src/search/vector/vector-index.ts";
import { syntheticCorpus, syntheticId } from "./synthetic-corpus.ts";

const N = 10_000;
const QUERIES = 100;
const K = 10;
// Scores are float32 dot products; within this they are the same score.
const TIE = 1e-6;

describe("VectorIndex recall", () => {
  test("ANN top-10 agrees with the exact top-10 on ≥ 95% of results over 10k hash-embedded texts", () => {
    const embedder = new HashEmbedder();
    const { documents, queries } = syntheticCorpus(N, QUERIES, 2024);
    // One insertion thread: the graph, and so the measured recall, is the same on every run.
    const ann = VectorIndex.open({ dims: embedder.dims, exactThreshold: 1000, threads: 1 });
    const exact = VectorIndex.open({ dims: embedder.dims, exactThreshold: N + 1 });
    documents.forEach((text, i) => {
      const vec = embedder.embedSync(text);
      ann.add(syntheticId(i), vec);
      exact.add(syntheticId(i), vec);
    });
    ann.flush();
    expect(ann.pending).toBe(0);
    expect(exact.pending).toBe(N);

    let agreeing = 0;
    for (const query of queries) {
      const vec = embedder.embedSync(query);
      const truth = exact.search(vec, K);
      const found = ann.search(vec, K);
      expect(found).toHaveLength(K);
      // Tie-aware: an ANN hit scoring as high as the exact 10th is a correct answer even if the
      // exact scan picked another document of the same score.
      const tenth = truth[K - 1]!.score;
      agreeing += found.filter((hit) => hit.score >= tenth - TIE).length;
    }
    const recall = agreeing / (QUERIES * K);
    console.log(`ANN recall@10 over ${N} vectors: ${recall}`);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });
});
