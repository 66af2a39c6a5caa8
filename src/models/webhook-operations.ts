/**
 * Webhook operations beside the memory (docs/webhook-operations.md): pausing a source per tenant,
 * the delivery log, bulk replay of dead letters. The HTTP schemas, and the records the tenant's
 * vault keeps for them (the ingest slice's tables, src/vault/tables.ts).
 */
import { type Static, type TLiteral, type TUnion, Type } from "@sinclair/typebox";
import {
  Cursor,
  IsoTime,
  LiteralUnion,
  NextCursor,
  QueryInteger,
  QueryObject,
  StrictObject,
  Timestamp,
} from "./common.ts";

/** Page sizes of the delivery log and of a bulk replay. */
export const MAX_DELIVERY_PAGE = 1000;
export const MAX_BULK_REPLAY = 1000;

export const DELIVERY_OUTCOMES = [
  "accepted",
  "duplicate",
  "dead_lettered",
  "ignored",
  "held",
  "discarded",
] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/**
 * How an event reached the pipeline this time: as it arrived, replayed from a dead letter, or
 * released by a resume; `discard`: its dead letter was discarded (nothing mapped, nothing written).
 */
export const DELIVERY_VIAS = ["delivery", "replay", "resume", "discard"] as const;
export type DeliveryVia = (typeof DELIVERY_VIAS)[number];

/** One event's outcome, as the delivery log keeps it: ids and times, never the body. */
export const DeliveryRecord = StrictObject({
  event_id: Type.String(),
  source: Type.String(),
  event_type: Type.String(),
  received_at: IsoTime,
  outcome: LiteralUnion(DELIVERY_OUTCOMES),
  entries: Type.Array(Type.String(), { description: "Ids of the entries the event wrote" }),
  request_id: Type.Union([Type.String(), Type.Null()], {
    description:
      "The X-Request-Id of the HTTP request that carried it (null for the CRM stream and the bridge)",
  }),
  via: LiteralUnion(DELIVERY_VIAS, {
    description:
      "delivery: as it arrived; replay: a dead letter replayed; resume: a held event released; discard: a dead letter discarded",
  }),
});
export type DeliveryRecord = Static<typeof DeliveryRecord>;

export const DeliveryPage = StrictObject({ deliveries: Type.Array(DeliveryRecord), next_cursor: NextCursor });

/**
 * A source id in a query or a body: one of `ids` (src/ingest/sources.ts: the webhook sources and
 * messaging), else a 422 like any other invalid value. In a path, an unknown source is a 404.
 */
function sourceId(ids: readonly string[]): TUnion<TLiteral<string>[]> {
  return Type.Union(
    ids.map((id) => Type.Literal(id)),
    { description: "A webhook source id, or messaging" },
  );
}

/** The ends of a `received_at` window; an order JSON Schema cannot compare, so the description says it. */
const WindowFrom = {
  ...Timestamp,
  description: "RFC 3339 timestamp: `received_at` at or after it (inclusive); not after `to` (422 otherwise)",
};
const WindowTo = {
  ...Timestamp,
  description: "RFC 3339 timestamp: `received_at` at or before it (inclusive)",
};

export const deliveryQuery = (ids: readonly string[]) =>
  QueryObject({
    source: Type.Optional(sourceId(ids)),
    event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    outcome: Type.Optional(LiteralUnion(DELIVERY_OUTCOMES)),
    from: Type.Optional(WindowFrom),
    to: Type.Optional(WindowTo),
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: MAX_DELIVERY_PAGE, default: 100 })),
    cursor: Type.Optional(Cursor),
  });

export const SOURCE_STATUSES = ["active", "paused"] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

/** A source's pause state as the tenant's vault keeps it (only sources ever paused have one). */
export interface SourceState {
  status: SourceStatus;
  /** A resume started and has not released every held event yet (continued after a restart). */
  resuming: boolean;
  /** When it was last paused or resumed (epoch ms). */
  changed_at: number;
}

/** A delivered event kept while its source is paused: released, in arrival order, by a resume. */
export interface HeldDelivery {
  /** Arrival order within the source. */
  seq: number;
  source: string;
  event_id: string;
  event_type: string;
  /** The parsed event (credential fields already removed), as a dead letter keeps it. */
  payload: unknown;
  /** Delivery headers without credentials or signatures. */
  headers: Record<string, string>;
  received_at: string;
  request_id: string | null;
}

/** The answer to a pause or a resume. */
export const SourceStatusReply = StrictObject({
  source: Type.String(),
  status: LiteralUnion(SOURCE_STATUSES),
  held: Type.Integer({ minimum: 0, description: "Events held, waiting for a resume" }),
});
export type SourceStatusReply = Static<typeof SourceStatusReply>;

export const SourceView = StrictObject({
  source: Type.String(),
  status: LiteralUnion(SOURCE_STATUSES),
  resuming: Type.Boolean({ description: "A resume is releasing the held events (they are still held)" }),
  held: Type.Integer({ minimum: 0 }),
  dead_letters: Type.Integer({ minimum: 0, description: "Dead letters of this source not replayed" }),
  changed_at: Type.Union([IsoTime, Type.Null()], { description: "Last paused or resumed; null: never" }),
});
export type SourceView = Static<typeof SourceView>;

export const SourceList = StrictObject({ sources: Type.Array(SourceView) });

/** `enum` documents the ids; an unknown one is a 404 from the route, not a 422 (as on the webhook route). */
export const sourcePathParams = (ids: readonly string[]) =>
  Type.Object({
    tenant_id: Type.String(),
    source: Type.String({ enum: [...ids], description: "A webhook source id, or messaging" }),
  });

export const bulkReplayBody = (ids: readonly string[]) =>
  StrictObject({
    source: Type.Optional(sourceId(ids)),
    from: Type.Optional(WindowFrom),
    to: Type.Optional(WindowTo),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BULK_REPLAY, default: 100 })),
    cursor: Type.Optional(
      Type.String({
        // It carries the last letter's event id (up to 512 characters, any Unicode, JSON-escaped):
        // room for the longest a source keeps.
        pattern: "^[A-Za-z0-9_-]{1,8192}$",
        description: "The next_cursor of the previous call (opaque; omit for the first)",
      }),
    ),
  });
/** What a bulk replay selects (the body, its source checked). */
export interface BulkReplayFilter {
  source?: string;
  from?: string;
  to?: string;
  event_type?: string;
  limit?: number;
  cursor?: string;
}

export const BulkReplayResult = StrictObject({
  event_id: Type.String(),
  source: Type.String(),
  status: Type.Union([Type.Literal("replayed"), Type.Literal("dead")]),
  entries: Type.Optional(Type.Array(Type.String())),
  last_error: Type.Optional(Type.String()),
});
export type BulkReplayResult = Static<typeof BulkReplayResult>;

export const BulkReplayReply = StrictObject({
  results: Type.Array(BulkReplayResult),
  replayed: Type.Integer({ minimum: 0 }),
  dead: Type.Integer({ minimum: 0 }),
  next_cursor: NextCursor,
});
export type BulkReplayReply = Static<typeof BulkReplayReply>;

/** A bulk discard: the letters it discarded, oldest first (the same filters and cursor as a bulk replay). */
export const BulkDiscardReply = StrictObject({
  results: Type.Array(StrictObject({ event_id: Type.String(), source: Type.String() })),
  discarded: Type.Integer({ minimum: 0 }),
  next_cursor: NextCursor,
});
export type BulkDiscardReply = Static<typeof BulkDiscardReply>;

/** A delivery to a paused source: verified, kept durably, nothing written (answered 202). */
export const HeldAnswer = StrictObject(
  { held: Type.Integer({ minimum: 0, description: "Events of this delivery now held" }) },
  { description: "The source is paused for this tenant: the delivery is held until it is resumed" },
);
