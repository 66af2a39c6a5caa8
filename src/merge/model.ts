import { Type } from "@sinclair/typebox";
import { StrictObject } from "../models/common.ts";
import { MergeRecord, MergeReview } from "../models/merge.ts";

/** What accepting or rejecting a review answers: the decided review, and the merge an accept made. */
export const Decided = StrictObject({ review: MergeReview, merge: Type.Optional(MergeRecord) });
