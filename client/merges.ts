/**
 * Merges of near-duplicates (docs/memory.md, "Merging near-duplicates"): merge two entries, read
 * and undo a merge, and decide the review band's pairs. A write merges with `dedupe: "merge"`.
 */
import type { components } from "./openapi-types.ts";
import type { Send } from "./send.ts";
import type { Result } from "./types.ts";

export type MergeRecord = components["schemas"]["MergeRecord"];
export type MergeReview = components["schemas"]["MergeReview"];
export type MergeReviewPage = components["schemas"]["MergeReviewPage"];
/** The answer of an accept or a reject: the review decided, and the merge an accept made. */
export type MergeDecision = { review: MergeReview; merge?: MergeRecord };

export interface MergesApi {
  /** `POST /memory/merges`: `from` hidden behind `into`, both kept (201). */
  merge(body: {
    category: MergeRecord["category"];
    from: string;
    into: string;
  }): Promise<Result<MergeRecord>>;
  /** `GET /memory/merges/{id}`: the merge named by its absorbed entry's id. */
  get(id: string): Promise<Result<MergeRecord>>;
  /** `POST /memory/merges/{id}/unmerge`: both entries live again. */
  unmerge(id: string): Promise<Result<MergeRecord>>;
  /** `GET /memory/merges/review`: pending pairs, paged by `cursor`. */
  reviews(query?: { limit?: number; cursor?: string }): Promise<Result<MergeReviewPage>>;
  /** `POST /memory/merges/review/{id}/accept`: the pair is merged. */
  accept(id: string): Promise<Result<MergeDecision>>;
  /** `POST /memory/merges/review/{id}/reject`: both kept, the pair never flagged again. */
  reject(id: string): Promise<Result<MergeDecision>>;
}

export function mergesApi(send: Send): MergesApi {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    merge: (body) => send("POST", "/memory/merges", { body }),
    get: (id) => send("GET", "/memory/merges/{id}", path(id)),
    unmerge: (id) => send("POST", "/memory/merges/{id}/unmerge", path(id)),
    reviews: (query) => send("GET", "/memory/merges/review", { params: { query } }),
    accept: (id) => send("POST", "/memory/merges/review/{id}/accept", path(id)),
    reject: (id) => send("POST", "/memory/merges/review/{id}/reject", path(id)),
  };
}
