import type { IngestItem } from "../ingest/ingest-item.ts";
import type { DeadLetter, DiscardReply } from "../models/dead-letter.ts";
import type {
  DeliveryOutcome,
  DeliveryRecord,
  HeldDelivery,
  SourceState,
  SourceStatus,
} from "../models/webhook-operations.ts";

/** The delivery log's filter, times in epoch ms (inclusive). */
export interface DeliveryLogQuery {
  source?: string;
  event_id?: string;
  outcome?: DeliveryOutcome;
  from?: number;
  to?: number;
  limit: number;
  cursor?: string;
}

/** Dead letters a bulk replay selects: status `dead`, in arrival order, after `after`. */
export interface DeadLetterSelection {
  source?: string;
  event_type?: string;
  /** Epoch ms on `received_at`, inclusive. */
  from?: number;
  to?: number;
  limit: number;
  /** The position of the last letter a previous call considered. */
  after?: LetterPosition;
}

/** Where a dead letter stands in arrival order (what a bulk replay's cursor names). */
export type LetterPosition = Pick<DeadLetter, "received_at" | "event_id" | "source">;

/** Who discards, and the request that asked (for the delivery log). */
export interface DiscardAsked {
  /** The `sub` of the principal (kept as the letter's `discarded_by`). */
  by: string;
  requestId: string | null;
}

/** How long what the webhook operations keep is kept (days; `deadDays` undefined: dead letters stay). */
export interface Retention {
  deliveryLogDays: number;
  deadLetterDays: number;
  deadDays?: number;
}

export interface PurgeReport {
  delivery_log: number;
  dead_letters: number;
  /** More expired records than one message removes: ask again. */
  more: boolean;
  /** Sources whose resume did not finish (a restart in the middle): the upkeep continues them. */
  resuming: string[];
  /** When the next record expires (epoch ms), or 0 with a source paused or resuming; null: nothing expires. */
  next_due: number | null;
  /** Sources paused or holding events (the node's metrics learn them from here after a restart). */
  sources: Array<{ source: string; paused: boolean; held: number }>;
}

/** Per source, what the tenant holds of it. */
export interface SourceFigures {
  state?: SourceState;
  held: number;
  dead_letters: number;
}

/** The tenant actor's messages of the webhook operations (actors/tenant/ingest/webhook-ops.ts). */
export type WebhookOpsProtocol = {
  /** Holds the source's events from now on (idempotent). */
  "source.pause": { msg: { source: string }; reply: { status: SourceStatus; held: number } };
  /** Marks a resume begun; the events stay held until `held.next` finds none left. */
  "source.resume": { msg: { source: string }; reply: { status: SourceStatus; held: number } };
  /**
   * The oldest event still held, for a resume to release; with none left, a source resuming turns
   * active in the same message (so no arrival is held after the last one is released).
   */
  "held.next": {
    msg: { source: string };
    reply: { next?: HeldDelivery; status: SourceStatus; resuming: boolean };
  };
  /** A held event, mapped again, applied and released in the same write. */
  "held.apply": {
    msg: { source: string; seq: number; item: IngestItem; requestId: string | null };
    reply: { outcome: Exclude<DeliveryOutcome, "held"> | "gone"; entries: string[] };
  };
  "sources.figures": { msg: object; reply: Record<string, SourceFigures> };
  "deliveries.page": {
    msg: DeliveryLogQuery;
    reply: { deliveries: DeliveryRecord[]; next_cursor: string | null };
  };
  /** Dead letters to replay, oldest first; `more`: others match after the last one. */
  "deadletter.select": { msg: DeadLetterSelection; reply: { letters: DeadLetter[]; more: boolean } };
  /**
   * Discards one dead letter (docs/webhook-operations.md#discard): kept, marked `discarded`, never
   * replayed again, logged. Unknown: 404; replayed already: 409; discarded already: answered as it was.
   */
  "deadletter.discard": {
    msg: { eventId: string; source?: string } & DiscardAsked;
    /** `discarded`: by this message (false: it was discarded before). */
    reply: { letter: DiscardReply; discarded: boolean };
  };
  /**
   * Discards the dead letters a bulk replay would select, in one write; `last`: the position of the
   * last one (a cursor's), `more`: others match after it.
   */
  "deadletter.discardSelected": {
    msg: { selection: DeadLetterSelection } & DiscardAsked;
    reply: { letters: DiscardReply[]; more: boolean; last?: LetterPosition };
  };
  /** Removes what retention lets go of, a bounded number at a time. */
  "webhooks.purge": { msg: { now: number; retention: Retention }; reply: PurgeReport };
};
