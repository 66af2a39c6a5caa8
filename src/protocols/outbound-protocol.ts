import type { Change } from "../models/change.ts";
import type { Entry } from "../models/entry.ts";
import type {
  Delivery,
  StoredSubscription,
  SubscriptionPatch,
  SubscriptionView,
} from "../models/subscription.ts";

/** A subscription as the admin route asks for it; the tenant actor adds the rest. */
export interface NewSubscription {
  id: string;
  url: string;
  events: StoredSubscription["events"];
  secret: string;
  created_at: string;
}

/** An entry erased since its change: nothing of it is left to send but when it went. */
export interface ErasedEntry {
  id: string;
  erased_at: string;
}

/** What a dead letter's event says of it: never its payload or headers. */
export interface DeadLetterSummary {
  event_id: string;
  source: string;
  event_type: string;
  received_at: string;
  last_error: string;
}

/** The `data` of an outbound event. */
export type EventData =
  | { change: Change; entry: Entry | ErasedEntry | null }
  | { change: Change; dead_letter: DeadLetterSummary | null };

/**
 * Messages of the tenant actor for outbound events (actors/tenant/outbound/handlers.ts): the
 * subscriptions and delivery logs live in the tenant's vault, so their writes go through its actor.
 */
export type OutboundTenantProtocol = {
  /** Stores a new subscription starting at the newest change; Conflict past `max` per tenant. */
  "subscription.create": { msg: { subscription: NewSubscription; max: number }; reply: StoredSubscription };
  "subscription.list": { msg: object; reply: SubscriptionView[] };
  /** `active`: active subscriptions left. NotFound when unknown. */
  "subscription.delete": { msg: { id: string }; reply: { deleted: string; active: number } };
  /** Active again, its failures forgotten; it resumes after its position. NotFound when unknown. */
  "subscription.enable": { msg: { id: string }; reply: SubscriptionView };
  /** The newest `limit` records of its delivery log, newest first. NotFound when unknown. */
  "subscription.deliveries": { msg: { id: string; limit: number }; reply: Delivery[] };
  /** The active subscriptions with their secrets: for the delivery worker only. */
  "outbound.active": { msg: object; reply: StoredSubscription[] };
  /** The `data` of the event of one change, as the entry (or dead letter) is now. */
  "outbound.payload": { msg: { change: Change }; reply: EventData };
  /** Applies the worker's patch and appends to the delivery log; `found` false once deleted. */
  "outbound.record": {
    msg: { id: string; patch: SubscriptionPatch; deliveries: Delivery[] };
    reply: { found: boolean; active: number };
  };
};

/** Messages of a tenant's delivery worker (actors/tenant/outbound/delivery-worker.ts). */
export type OutboundProtocol = {
  /** Re-reads the active subscriptions and delivers what is due; `active`: how many. */
  "outbound.refresh": { msg: object; reply: { active: number } };
  /** New changes were committed. */
  "outbound.wake": { msg: object; reply: undefined };
  /** A retry's backoff has passed. */
  "outbound.retry": { msg: { id: string; lane: number }; reply: undefined };
  /** An attempt's answer (or its failure), reported from outside the mailbox. */
  "outbound.result": { msg: { id: string; lane: number; attempt: AttemptResult }; reply: undefined };
};

export interface AttemptResult {
  seq: number;
  type: string;
  webhookId: string;
  at: number;
  status: number | null;
  error?: string;
  durationMs: number;
}
