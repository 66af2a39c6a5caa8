import type { DeliveryRecord, HeldDelivery, SourceState } from "../models/webhook-operations.ts";

/** A delivery log key: when the outcome was logged (epoch ms), then a number unique within that ms. */
export type LogKey = [number, number];

/** A held event, named by its source and arrival sequence. */
export interface HeldRef {
  source: string;
  seq: number;
  event_id: string;
}

/**
 * What a write changes of the webhook operations' records (the ingest slice's tables): the
 * delivery log, events held while their source is paused, the sources' pause states, and what
 * retention and erasure remove. Part of the write set, so a log record commits with the entries
 * of its event and a held event's release with what it wrote, and cluster mode's changelog
 * carries them like every other table.
 */
export interface WebhookRecords {
  log?: Array<[LogKey, DeliveryRecord]>;
  /** Events to hold, each with its id's index record. */
  held?: HeldDelivery[];
  /** Held events applied (or erased): their records and index records go. */
  released?: HeldRef[];
  sources?: Array<[string, SourceState]>;
  /** Delivery log records removed (retention, erasure). */
  purgedLog?: LogKey[];
  /** Dead letters removed by retention, by the key they were written under (`event_id NUL source`). */
  purgedDeadLetters?: string[];
}

/** The held-ids key of an event (the dedupe key's form). */
export function heldIdKey(source: string, eventId: string): string {
  return `${source}\u0000${eventId}`;
}

/** A held record's key as the staging map names it. */
export function heldStageKey(source: string, seq: number): string {
  return `${source}\u0000${seq}`;
}

/**
 * The values a write set's webhook part stages until it commits, by staging key: held records
 * (`q`) and their id index (`h`), a release staged as null; pause states (`s`). The delivery log
 * is not staged: its pages are read from what is committed.
 */
export function* stagedWebhookValues(records: WebhookRecords | undefined): Generator<[string, unknown]> {
  if (!records) return;
  for (const held of records.held ?? []) {
    yield [`q:${heldStageKey(held.source, held.seq)}`, held];
    yield [`h:${heldIdKey(held.source, held.event_id)}`, held.seq];
  }
  for (const ref of records.released ?? []) {
    yield [`q:${heldStageKey(ref.source, ref.seq)}`, null];
    yield [`h:${heldIdKey(ref.source, ref.event_id)}`, null];
  }
  for (const [source, state] of records.sources ?? []) yield [`s:${source}`, state];
}

/** Keys of the webhook part that LMDB must be able to store (checked before anything is queued). */
export function webhookKeys(records: WebhookRecords | undefined): string[] {
  if (!records) return [];
  return [
    ...(records.held ?? []).map((h) => heldIdKey(h.source, h.event_id)),
    ...(records.purgedDeadLetters ?? []),
  ];
}
