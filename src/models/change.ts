import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { IsoTime, LiteralUnion, StrictObject } from "./common.ts";

/**
 * What happened to a tenant's memory, one record per fact of change, committed in the same
 * transaction as the change itself: the tenant's change log. It feeds entry history, outbound
 * events, the live stream and (later) replication. It holds ids and types, never content, so
 * erasing an entry leaves nothing of it here.
 */
export const CHANGE_TYPES = [
  "entry.created",
  "entry.superseded",
  "entry.corrected",
  "entry.retracted",
  "entry.erased",
  "decision.resolved",
  "exception.resolved",
  "deadletter.created",
  // Merges (actors/tenant/merges/): on the absorbed entry, on the survivor, and an un-merge on both.
  "entry.merged",
  "entry.absorbed",
  "entry.unmerged",
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export const Change = StrictObject({
  /** Position in the tenant's change log: increasing, gaps allowed (a rolled-back write's). */
  seq: Type.Integer({ minimum: 1 }),
  /** Transaction time. */
  at: IsoTime,
  type: LiteralUnion(CHANGE_TYPES),
  /** The entry changed; for `deadletter.created`, the dead-lettered event's id. */
  id: Type.String(),
  category: Type.Optional(LiteralUnion(CATEGORIES)),
  /** Who caused it: a token's `sub`, or `connector:<source>`. */
  by: Type.String(),
  /** The other entry of a relation: the superseding or correcting entry, the resolving outcome. */
  related: Type.Optional(Type.String()),
  /** `deadletter.created`: the source of the event. */
  source: Type.Optional(Type.String()),
});
export type Change = Static<typeof Change>;

/** A change as a write declares it; the vault gives it its position and time on commit. */
export type ChangeDraft = Omit<Change, "seq" | "at">;
