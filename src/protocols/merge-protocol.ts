import type { Category } from "../models/category.ts";
import type { MergeRecord, MergeReview, ReviewPage } from "../models/merge.ts";
import type { ScopeFilter } from "../models/scope.ts";

type Within = ScopeFilter["within"];

/** The tenant actor's merge messages (actors/tenant/merges/). */
export type MergeTenantProtocol = {
  /** Merges `from` into `into` (two live entries of one category and subject). */
  "merge.create": {
    msg: { category: Category; from: string; into: string; by: string; within?: Within };
    reply: MergeRecord;
  };
  /** The merge named by its absorbed entry's id (404 when none). */
  "merge.get": { msg: { id: string; within?: Within }; reply: MergeRecord };
  /** Restores both sides of a merge (409 when undone already). */
  "merge.undo": { msg: { id: string; by: string; within?: Within }; reply: MergeRecord };
  /** Pending reviews of the categories, a page after `after`. */
  "merge.reviews": {
    msg: { categories: Category[]; limit: number; after?: string; within?: Within };
    reply: ReviewPage;
  };
  "merge.review.get": { msg: { id: string; within?: Within }; reply: MergeReview };
  /** Accept (merge the pair) or reject (keep both, never flagged again); 409 once decided. */
  "merge.review.decide": {
    msg: { id: string; accept: boolean; by: string; within?: Within };
    reply: { review: MergeReview; merge?: MergeRecord };
  };
};
