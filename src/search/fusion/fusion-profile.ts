import type { EmbedderKind } from "../../embedding/embedder.ts";

/**
 * How hybrid search weighs one embedder's cosines against BM25 (hybrid.ts). Each figure was
 * chosen on the retrieval evaluation set (`bun run eval`; docs/embedding-and-search.md has the
 * measurements), so that every embedder ranks at least as well as BM25 alone.
 */
export interface FusionProfile {
  /** The vector side's share of the fused score, 0–1; BM25 has the rest. */
  vectorWeight: number;
  /**
   * The cosine that unrelated texts typically have under this embedder. Cosines are re-centred on
   * it, `(cos − centre) / (1 − centre)` clamped to [0, 1], so "unrelated" scores 0 whatever the
   * model: sentence models do not put unrelated sentences near 0 (USE-lite: ~0.23).
   */
  cosineCentre: number;
  /**
   * Vector evidence: when no candidate's cosine reaches this, the query's vector tells the
   * candidates apart no better than chance, and BM25 ranks alone (the vector side weighs 0).
   */
  minCosine: number;
}

export const FUSION_PROFILES: Readonly<Record<EmbedderKind, FusionProfile>> = {
  // Feature hashing knows no meaning, only shared words and word pairs, which BM25 already
  // scores better: it gets a tenth, for the word pairs (phrases) BM25 does not see. More lowers
  // the ranking (0.6, the old weight, fell below BM25 alone).
  hash: { vectorWeight: 0.1, cosineCentre: 0, minCosine: 0.2 },
  // USE-lite: the best weight measured was 0.7–0.8; 0.7 is taken, as questions that share words
  // with their answer (most of them, in real use) peak there. Unrelated sentences: cosine ~0.2.
  local: { vectorWeight: 0.7, cosineCentre: 0.2, minCosine: 0.3 },
  // The table distilled from USE-lite (static-embedder.ts), fitted to the model's vectors: its
  // unrelated texts sit where the model's do (median cosine 0.18 on held-out pairs), so the same
  // centre and floor. Weight measured: R@5 0.739 / 0.745 / 0.743 / 0.737 / 0.705 at 0.4 / 0.5 /
  // 0.6 / 0.7 / 0.85; it knows less of paraphrase than the model, so BM25 keeps half.
  static: { vectorWeight: 0.5, cosineCentre: 0.2, minCosine: 0.3 },
  // The table's query against the upgraded vectors (the model's plus 0.3 of the table's,
  // tiered-embedder.ts), measured in process (bench/eval/ablation-runner.ts, `queryEmbedder`):
  // R@5 / NDCG@10 / session R@5 0.760 / 0.641 / 0.881 at 0.6, 0.768 / 0.645 / 0.887 at 0.7,
  // 0.775 / 0.646 / 0.893 at 0.75. Through the service the business set's "open cases as text"
  // fell with the weight (recall@5 0.714 at 0.6, 0.619 at 0.65, 0.286 at 0.75), so 0.6 is kept.
  tiered: { vectorWeight: 0.6, cosineCentre: 0.2, minCosine: 0.3 },
  // Models behind an endpoint, or the caller's own vectors, are of unknown quality: an even
  // share, and a modest centre that suits common embedding APIs (unrelated texts at 0.1–0.3).
  http: { vectorWeight: 0.5, cosineCentre: 0.2, minCosine: 0.3 },
  client: { vectorWeight: 0.5, cosineCentre: 0.2, minCosine: 0.3 },
};

/** For a search that names no embedder (a direct call to the index, a test): an even share. */
export const DEFAULT_FUSION: FusionProfile = FUSION_PROFILES.http;

export function fusionProfile(kind: EmbedderKind): FusionProfile {
  return FUSION_PROFILES[kind];
}
