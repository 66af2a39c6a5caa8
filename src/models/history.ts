import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { IsoTime, LiteralUnion, Sha8, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

export const HISTORY_EVENTS = [
  "created",
  "supersedes",
  "superseded_by",
  "corrects",
  "corrected_by",
  "resolves",
  "resolved_by",
  "retracted",
  "erased",
  "merged_into",
  "merged_from",
  "unmerged",
] as const;
export type HistoryEventType = (typeof HISTORY_EVENTS)[number];

/** One thing that happened to the entry, at its transaction time, and who did it. */
export const HistoryEvent = named(
  "HistoryEvent",
  StrictObject({
    type: LiteralUnion(HISTORY_EVENTS),
    at: IsoTime,
    by: Type.String(),
    /** The other entry of a relation (the superseding entry, the outcome that resolved it…). */
    related: Type.Optional(Type.String()),
  }),
);
export type HistoryEvent = Static<typeof HistoryEvent>;

/** One version of the same fact along its supersession and correction chain. */
export const HistoryVersion = named(
  "HistoryVersion",
  StrictObject({
    id: Sha8,
    recorded_at: IsoTime,
    valid_from: Type.Union([IsoTime, Type.Null()], { description: "null once erased" }),
    valid_to: Type.Union([IsoTime, Type.Null()]),
    expired_at: Type.Union([IsoTime, Type.Null()]),
    erased_at: Type.Union([IsoTime, Type.Null()]),
  }),
);
export type HistoryVersion = Static<typeof HistoryVersion>;

/** `GET /memory/{category}/{sha8}/history`. */
export const EntryHistory = named(
  "EntryHistory",
  StrictObject({
    id: Sha8,
    category: LiteralUnion(CATEGORIES),
    erased_at: Type.Union([IsoTime, Type.Null()]),
    /** Oldest first: the versions before this entry, this entry, and those that replaced it. */
    versions: Type.Array(HistoryVersion),
    /** In transaction-time order. */
    events: Type.Array(HistoryEvent),
  }),
);
export type EntryHistory = Static<typeof EntryHistory>;
