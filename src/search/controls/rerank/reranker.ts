/**
 * The `reranker` port (docs/embedding-and-search.md#a-re-ranking-stage): what re-orders the top
 * fused hits of a text search. Two kinds:
 *
 * - `builtin` runs inside the tenant's search, on features the tenant already has (builtin.ts):
 *   the search is asked once, with `rerank: {by: "builtin"}`;
 * - `http` is a service the operator runs (http-reranker.ts): the search is asked for its top
 *   candidates, the service scores them within the budget, and the search is asked again with the
 *   scores, or with the reason it fell back to the fused order (rerank-search.ts).
 *
 * Either way the filters decide which entries may be found; a re-ranker only orders them.
 */
import type { RerankerKind, RerankFallback } from "../../../models/rerank.ts";

export interface RerankDocument {
  id: string;
  text: string;
}

/** A re-ranker's failure: the search answers in the fused order, and says why. */
export class RerankFailed extends Error {
  constructor(
    readonly reason: RerankFallback,
    message: string,
  ) {
    super(message);
  }
}

interface RerankerBase {
  readonly by: RerankerKind;
  /** How many of the fused hits it orders. */
  readonly top: number;
  readonly budgetMs: number;
}

/** Scores computed by the tenant's search itself (builtin.ts). */
export interface InlineReranker extends RerankerBase {
  readonly by: "builtin";
}

/** A service: one score per document, in the documents' order; a RerankFailed when it cannot. */
export interface ServiceReranker extends RerankerBase {
  readonly by: "http";
  score(query: string, documents: readonly RerankDocument[], signal: AbortSignal): Promise<number[]>;
}

export type Reranker = InlineReranker | ServiceReranker;

/**
 * What the tenant's search is asked to do with its ranked pool (SearchEntries.rerank):
 * `builtin` score and order it; `collect` answer its top `top` as they are (the candidates a
 * service scores); `scores` order it by a service's scores (by entry id); `fallback` keep the
 * fused order and explain why.
 */
export type RerankAsk =
  | { by: "builtin"; top: number }
  | { by: "http"; top: number; collect: true }
  | { by: "http"; top: number; scores: Readonly<Record<string, number>> }
  | { by: "http"; top: number; fallback: RerankFallback };
