import type { DeliveryRecord, HeldDelivery, SourceState } from "../models/webhook-operations.ts";
import type { TablesOf } from "./tables.ts";
import type { WriteSet } from "./write-set.ts";

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

/** The plain puts and removals of a write set's webhook part, joining its transaction. */
export function putWebhookRecords(ingest: TablesOf<"ingest">, records: WebhookRecords): void {
  for (const [key, record] of records.log ?? []) ingest.deliveryLog.put(key, record);
  for (const held of records.held ?? []) {
    ingest.held.put([held.source, held.seq], held);
    ingest.heldIds.put(heldIdKey(held.source, held.event_id), held.seq);
  }
  for (const ref of records.released ?? []) {
    ingest.held.remove([ref.source, ref.seq]);
    ingest.heldIds.remove(heldIdKey(ref.source, ref.event_id));
  }
  for (const [source, state] of records.sources ?? []) ingest.sources.put(source, state);
  for (const key of records.purgedLog ?? []) ingest.deliveryLog.remove(key);
  for (const key of records.purgedDeadLetters ?? []) ingest.deadLetters.remove(key);
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

/**
 * A set that only removes records (retention): let through at the vault's size ceiling, as an
 * erasure is, since it frees space.
 */
export function onlyFrees(set: WriteSet): boolean {
  const w = set.webhooks;
  if (!w || set.entries.length > 0 || set.deadLetters || set.dedupe || set.state || set.objects) return false;
  if (set.idempotency || set.vectors || set.embedding || set.changes?.length) return false;
  return !w.log?.length && !w.held?.length && !w.sources?.length;
}
