import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { IsoTime, LiteralUnion, NextCursor, PageQuery, Sha8, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/**
 * From this similarity (similar.ts's measure) `?dedupe=merge` merges a write into the live entry it
 * repeats. Chosen on the labelled set of bench/eval/merge-set.ts: docs/memory.md gives its
 * false-merge and missed-merge rates.
 */
export const MERGE_THRESHOLD = 0.9;
/** From this similarity up to MERGE_THRESHOLD the pair is flagged for review instead. */
export const REVIEW_THRESHOLD = 0.8;

/**
 * A merge: `from` (the absorbed entry) is hidden behind `into` (the survivor) from `at` on. It is
 * named by the absorbed entry's id: an entry is absorbed at most once at a time.
 */
export const MergeRecord = named(
  "MergeRecord",
  StrictObject({
    id: Sha8,
    category: LiteralUnion(CATEGORIES),
    from: Type.String({
      description: "The absorbed entry: recorded, hidden from the read model (merged_into)",
    }),
    into: Type.String({
      description: "The surviving entry: unchanged, its trust never raised (merged_from)",
    }),
    score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
      description: "The pair's similarity when a write or a review merged it; null for a merge asked by ids",
    }),
    status: LiteralUnion(["merged", "unmerged"] as const),
    at: IsoTime,
    by: Type.String(),
    unmerged_at: Type.Union([IsoTime, Type.Null()]),
    unmerged_by: Type.Union([Type.String(), Type.Null()]),
  }),
);
export type MergeRecord = Static<typeof MergeRecord>;

/** A pair between the two thresholds, waiting for a person's accept (merge) or reject (keep both). */
export const MergeReview = named(
  "MergeReview",
  StrictObject({
    id: Type.String({ description: "The pair's id: `<from>-<into>`" }),
    category: LiteralUnion(CATEGORIES),
    from: Type.String({ description: "The newer entry, absorbed on accept" }),
    into: Type.String({ description: "The live entry it resembles, surviving on accept" }),
    score: Type.Number({ minimum: 0, maximum: 1 }),
    status: LiteralUnion(["pending", "accepted", "rejected"] as const),
    flagged_at: IsoTime,
    decided_at: Type.Union([IsoTime, Type.Null()]),
    decided_by: Type.Union([Type.String(), Type.Null()]),
  }),
);
export type MergeReview = Static<typeof MergeReview>;

export const ReviewPage = named(
  "MergeReviewPage",
  StrictObject({ items: Type.Array(MergeReview), next_cursor: NextCursor }),
);
export type ReviewPage = Static<typeof ReviewPage>;

export const ReviewQuery = PageQuery(200, 50);

/** `POST /memory/merges`: merge `from` into `into` (both live, of one category and one subject). */
export const MergeBody = StrictObject({ category: LiteralUnion(CATEGORIES), from: Sha8, into: Sha8 });
export type MergeBody = Static<typeof MergeBody>;

export const MergeParams = Type.Object({ id: Sha8 });
/** A review's id: the two entries' ids. */
export const ReviewParams = Type.Object({
  id: Type.String({ pattern: "^[0-9a-f]{8}-[0-9a-f]{8}$", description: "`<from>-<into>`" }),
});
