/**
 * Messages of the connector actors (actors/connectors/mail-watch/, actors/connectors/crm-stream/),
 * one actor of each kind per tenant. Their statuses are stored in the tenant's connector state as
 * `status:mail` and `status:crm`, which tenant health shows under `connectors`.
 */
// biome-ignore-all lint/suspicious/noConfusingVoidType: a reply of `void` is "no answer", as in TenantProtocol.

import type { BridgeEvent } from "../bridge/events.ts";
import type { StreamClosed, StreamEvent } from "../connectors/transport.ts";
import type { MapResult, SourceEvent } from "../sources/types.ts";

export interface MailStatus {
  /**
   * `active`: the watch is live; `retrying`: the last watch call failed and no live watch remains;
   * `not_configured`: the watch lacks credentials or a topic; `push_only`: notifications are
   * expanded but this runtime manages no watch (no topic).
   */
  state: "active" | "retrying" | "not_configured" | "push_only" | "stopped";
  email?: string;
  topic?: string;
  /** RFC 3339 expiry of the current watch. */
  expiration?: string;
  last_renewed_at?: string;
  next_renewal_at?: string;
  /** The stored history high-water mark. */
  history_id?: string;
  last_expanded_at?: string;
  /** Notifications whose expansion failed for a passing reason (429, 5xx, no answer), waiting to be replayed. */
  pending_retries?: number;
  /** When they are replayed: the API's `Retry-After`, else the backoff. */
  next_retry_at?: string;
  last_error: string | null;
  last_error_at?: string;
}

export interface MailExpansion {
  result: MapResult;
  /** Connector state committed with the entries (the new history high-water mark, seen threads). */
  state?: Array<[string, unknown]>;
  /** Orders state snapshots: the tenant never lets an older snapshot overwrite a newer one. */
  stateSeq?: number;
}

export interface CrmStatus {
  /**
   * `refused`: the configuration is unusable (why is in last_error); `backoff`: waiting to reconnect
   * (until `next_retry_at`); `halted`: the server advised not to reconnect (Bayeux reconnect=none).
   */
  state: "not_configured" | "refused" | "connecting" | "connected" | "backoff" | "halted" | "stopped";
  transport?: "sse" | "bayeux";
  channels?: string[];
  connected_at?: string;
  last_event_at?: string;
  /** Last committed replay id per channel. */
  replay?: Record<string, string | number>;
  events: number;
  reconnects: number;
  /** Assertions signed since the connector started (each 401 costs one). */
  authentications: number;
  next_retry_at?: string;
  last_error: string | null;
  last_error_at?: string;
}

export type MailWatchProtocol = {
  /** Starts (or resumes) the mailbox watch and its renewal schedule. */
  "mail.start": { msg: object; reply: MailStatus };
  /** Timer: renew the watch now (or retry a failed watch call). */
  "mail.renew": { msg: object; reply: void };
  /** Expands one push notification into drafts through the mail API; never throws. */
  "mail.expand": { msg: { event: SourceEvent }; reply: MailExpansion };
  /**
   * Whether the tenant committed what an expansion produced. A refused commit (a full disk) undoes
   * the expansion's advance of the mark, so the redelivered notification expands that history again.
   */
  "mail.settled": { msg: { eventId: string; committed: boolean }; reply: void };
  /** Timer: replay the notifications whose expansion failed for a passing reason. */
  "mail.catchup": { msg: object; reply: void };
  "mail.status": { msg: object; reply: MailStatus };
  /** Stops the watch renewals (secrets gone, tenant suspended) and records `stopped`. */
  "mail.stop": { msg: object; reply: void };
};

export type CrmStreamProtocol = {
  /** Reads the configuration and connects (a no-op when already running). */
  "crm.start": { msg: object; reply: CrmStatus };
  /** Timer: connect again after a backoff. `gen` guards against a timer of an older connection. */
  "crm.connect": { msg: { gen: number }; reply: void };
  "crm.opened": { msg: { gen: number }; reply: void };
  /** One event from the transport of connection `gen`; ingested and committed before the next. */
  "crm.event": { msg: { gen: number; event: StreamEvent }; reply: void };
  /** The transport of connection `gen` ended. */
  "crm.closed": { msg: { gen: number } & StreamClosed; reply: void };
  "crm.warning": { msg: { gen: number; message: string }; reply: void };
  "crm.status": { msg: object; reply: CrmStatus };
  /** Closes the stream and its timers (secrets gone, tenant suspended) and records `stopped`. */
  "crm.stop": { msg: object; reply: void };
};

/**
 * What `bridge.deliver` answers: the ids written, duplicates, dead letters and ignored events;
 * `held`: 1 when the tenant paused the `messaging` source (the event waits for its resume).
 */
export interface BridgeResult {
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
  ignored: number;
  held: number;
}

export interface BridgeStatus {
  state: "active";
  events: number;
  last_event_at: string | null;
  last_error: string | null;
}

export type BridgeProtocol = {
  "bridge.deliver": { msg: { event: BridgeEvent }; reply: BridgeResult };
  "bridge.status": { msg: object; reply: BridgeStatus };
};
