import { type Static, Type } from "@sinclair/typebox";
import { IsoTime, LiteralUnion, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/** `discarded`: an operator gave up on it (docs/webhook-operations.md#discard); never replayed again. */
export const DEAD_LETTER_STATUSES = ["dead", "replayed", "discarded"] as const;
/** What a replay leaves a dead letter as. */
export const REPLAY_STATUSES = ["replayed", "dead"] as const;

/** A source event the runtime owns but could not turn into entries (CONTRACT §7). */
export const DeadLetter = named(
  "DeadLetter",
  StrictObject({
    event_id: Type.String(),
    tenant_id: Type.String(),
    source: Type.String(),
    event_type: Type.String(),
    received_at: IsoTime,
    attempts: Type.Integer({ minimum: 1 }),
    last_error: Type.String(),
    status: LiteralUnion(DEAD_LETTER_STATUSES),
    /** The source event as parsed from the delivery: what a replay maps again. */
    payload: Type.Unknown(),
    /** Delivery headers without credentials or signatures. */
    headers: Type.Record(Type.String(), Type.String()),
    /** Ids written when a replay succeeded. */
    entries: Type.Optional(Type.Array(Type.String())),
    replayed_at: Type.Optional(IsoTime),
    discarded_at: Type.Optional(IsoTime),
    /** The `sub` of whoever discarded it. */
    discarded_by: Type.Optional(Type.String()),
  }),
);
export type DeadLetter = Static<typeof DeadLetter>;

export const DeadLetterList = named("DeadLetterList", StrictObject({ dead_letters: Type.Array(DeadLetter) }));

/** What a replay answers: the entries written, or the dead letter's new error. */
export const ReplayReply = named(
  "DeadLetterReplay",
  StrictObject({
    event_id: Type.String(),
    status: Type.Union([Type.Literal("replayed"), Type.Literal("dead")]),
    entries: Type.Optional(Type.Array(Type.String())),
    last_error: Type.Optional(Type.String()),
  }),
);
export type ReplayReply = Static<typeof ReplayReply>;

/** A discarded dead letter, as a discard answers it (the letter itself stays listed). */
export const DiscardReply = named(
  "DeadLetterDiscard",
  StrictObject({
    event_id: Type.String(),
    source: Type.String(),
    status: Type.Literal("discarded"),
    discarded_at: IsoTime,
    discarded_by: Type.String(),
  }),
);
export type DiscardReply = Static<typeof DiscardReply>;

/** CONTRACT §7's answer to a delivery. */
export const IngestSummary = named(
  "WebhookSummary",
  StrictObject({
    accepted: Type.Integer(),
    entries: Type.Array(Type.String()),
    duplicates: Type.Integer(),
    dead_lettered: Type.Array(Type.String()),
    ignored: Type.Integer({ description: "Events of types the source's mapping does not cover" }),
  }),
);

/**
 * Cluster mode only (docs/cluster.md, "Durable webhook intake"): the delivery is durably queued on
 * the intake stream and the owner did not answer within the wait; it will be applied, not yet.
 */
export const IntakeQueued = named(
  "WebhookQueued",
  StrictObject(
    {
      queued: Type.Array(Type.String(), {
        description: "The delivery's event ids (empty when the owner parses the delivery itself)",
      }),
    },
    { description: "Cluster mode: accepted into the intake stream, not yet applied" },
  ),
);
