import { type Static, Type } from "@sinclair/typebox";
import { LiteralUnion, StrictObject } from "./common.ts";

/** The re-rankers a runtime can run (`MEMORY_RUNTIME_RERANKER`, besides `off`). */
export const RERANKERS = ["builtin", "http"] as const;
export type RerankerKind = (typeof RERANKERS)[number];

/**
 * Why a re-ranking fell back to the fused order: the service did not answer within the budget,
 * could not be reached, answered an error (429 rate-limited apart), or answered something that is
 * not one score per document.
 */
export const RERANK_FALLBACKS = [
  "timeout",
  "unreachable",
  "rate_limited",
  "http_error",
  "invalid_answer",
] as const;
export type RerankFallback = (typeof RERANK_FALLBACKS)[number];

/** The search body's `rerank` control (docs/embedding-and-search.md#a-re-ranking-stage). */
export const RERANK_CONTROL_FIELD = {
  rerank: Type.Optional(
    Type.Boolean({
      description:
        "false: this search skips the runtime's re-ranker (MEMORY_RUNTIME_RERANKER); true or absent: the top fused hits are re-ranked when one is configured",
    }),
  ),
};

/** A result's `explain.rerank`: how the re-ranking stage placed it. */
export const RerankExplain = StrictObject(
  {
    by: LiteralUnion(RERANKERS, { description: "The re-ranker" }),
    score: Type.Optional(
      Type.Number({ description: "The re-ranker's score of the entry (absent on a fallback)" }),
    ),
    rank_before: Type.Integer({
      minimum: 1,
      description: "Its rank (1 = first) in the fused order, before the re-ranking",
    }),
    fallback: Type.Optional(
      LiteralUnion(RERANK_FALLBACKS, {
        description: "The re-ranker failed: the results keep the fused order, and this says why",
      }),
    ),
  },
  {
    description:
      "With a re-ranker configured: the entry's place before it and its score (docs: the re-ranking stage)",
  },
);
export type RerankExplain = Static<typeof RerankExplain>;
