import { ValidationFailed } from "../errors/domain-errors.ts";
import type { Category } from "../models/category.ts";
import type { ChangeDraft } from "../models/change.ts";
import type { StoredEntry } from "../models/stored-entry.ts";
import { type OutboundRecords, outboundOnlyFrees } from "./outbound-records.ts";
import { type WebhookRecords, webhookKeys } from "./webhook-records.ts";

/**
 * Everything one acknowledged write changes; committed in one transaction. It is also the unit
 * cluster mode appends to the partition changelog and replays (src/cluster/changelog.ts), so its
 * shape is the vault's on-the-wire format: plain data, each part for the tables of one feature.
 */
export interface WriteSet {
  entries: StoredEntry[];
  /** Entries that are new (and so get index keys); the rest of `entries` are updates. */
  created: StoredEntry[];
  vectors?: Array<[string, Float32Array]>;
  idempotency?: { key: string; record: IdempotencyRecord };
  /** An event's dedupe record (the ingest slice's `dedupeKey(source, event_id)`). */
  dedupe?: { key: string; record: DedupeRecord };
  /** The records of the further events of a delivery written as one set (dedupeRecords reads both). */
  dedupes?: Array<{ key: string; record: DedupeRecord }>;
  objects?: Array<[string, string]>;
  /** Keyed by the ingest slice's `deadLetterKey(event_id, source)`. */
  deadLetters?: Array<[string, unknown]>;
  /** Connector state (and queue records) to put; a null value removes the key. */
  state?: Array<[string, unknown]>;
  /** With a sequence, each state key is written only if no newer snapshot was written before. */
  stateSeq?: number;
  /** What the set changes, for the change log (committed with it). */
  changes?: ChangeDraft[];
  /** Entries removed for good (erasure), with what else must go with them. */
  erase?: Erasure;
  /** The background embedder's records: its backlog, the vectors it made (embedding-records.ts). */
  embedding?: EmbeddingRecords;
  /** Delivery log, held events, pause states and their purges (webhook-records.ts). */
  webhooks?: WebhookRecords;
  /** Subscriptions and their delivery logs (outbound-records.ts). */
  outbound?: OutboundRecords;
  /** Transaction time of the changes (default: the vault's clock at write). */
  at?: number;
}

/** A write set of no entries, writing only `extra`. */
export function emptySet(extra: Partial<WriteSet>): WriteSet {
  return { entries: [], created: [], ...extra };
}

/** Every dedupe record of the set: an event's, then those of the delivery's further events. */
export function dedupeRecords(set: WriteSet): Array<{ key: string; record: DedupeRecord }> {
  return set.dedupe ? [set.dedupe, ...(set.dedupes ?? [])] : (set.dedupes ?? []);
}

/**
 * What a write does to the background embedder's backlog. Part of the write set so that a queue
 * record commits with its entry, and a vector with the removal of its queue record, and so that
 * cluster mode's changelog carries them like every other table.
 */
export interface EmbeddingRecords {
  /** Entries to embed in the background: [seq, id]. */
  queue?: Array<[number, string]>;
  /** Vectors made for queued entries: [seq, id, vector], stored and their queue records removed. */
  done?: Array<[number, string, Float32Array]>;
  /** The embedder the vault's vectors are made with, recorded with the first write that needs it. */
  stamp?: string;
  /**
   * The embedder changed: every stored vector and queue record goes, `stamp` is recorded and, when
   * the new embedder makes vectors itself (`requeue`), every entry is queued to be embedded again.
   */
  reset?: { stamp: string; requeue: boolean };
  /** Vectors of entries that had none (`tiered`'s fast tier, at the vault's opening): [seq, id, vector]. */
  fill?: Array<[number, string, Float32Array]>;
  /**
   * A switch within the sentence model's space (embedder-check.ts): `drop-queued` (tiered → local)
   * drops the vectors of the queued entries, the table's, and keeps their records; `queue-vectored`
   * (static → tiered) queues every entry with a vector for the model's upgrade. Read from the
   * committed tables, so a replay (cluster mode's changelog) does the same.
   */
  retier?: "drop-queued" | "queue-vectored";
}

/** An erased entry's trace: enough to explain a reference to it, nothing of its content. */
export interface Tombstone {
  id: string;
  category: Category;
  recorded_at: string;
  erased_at: string;
  erased_by: string;
  /** Who wrote the entry (the change log does not index creations: change-log.ts byEntryKey). */
  created_by?: string;
}

export interface Erasure {
  entries: StoredEntry[];
  tombstones: Tombstone[];
  /** Keys of the dead letters that carried the erased content. */
  deadLetters: string[];
  /** Keys of idempotency records whose stored answer is an erased entry. */
  idempotency: string[];
}

export interface IdempotencyRecord {
  at: number;
  status: number;
  body: unknown;
  /** Digest of the request the key was first used with (absent in records of older versions). */
  request?: string;
}

export interface DedupeRecord {
  at: number;
  entries: string[];
}

/** LMDB's largest key (lmdb-js builds it with 1978 bytes); array keys take a few bytes more. */
export const MAX_KEY_BYTES = 1978;
const KEY_MARGIN = 32;

/** A write whose key LMDB could not store: refused whole, nothing queued. */
export class KeyTooLong extends ValidationFailed {
  constructor(message: string) {
    super(message, [{ path: "/", message: "a key is too long to store" }]);
  }
}

/** The byte length of the first key of `set` that would not fit, or undefined. */
export function oversizedKey(set: WriteSet): number | undefined {
  const keys: string[] = [];
  for (const s of set.created) keys.push(...(s.entry.tags ?? []));
  for (const [key] of set.objects ?? []) keys.push(key);
  for (const [key] of set.deadLetters ?? []) keys.push(key);
  for (const [key] of set.state ?? []) keys.push(`~seq:${key}`);
  if (set.idempotency) keys.push(set.idempotency.key);
  for (const { key } of dedupeRecords(set)) keys.push(key);
  for (const change of set.changes ?? []) keys.push(change.id);
  keys.push(...webhookKeys(set.webhooks));
  for (const key of keys) {
    const bytes = Buffer.byteLength(key);
    if (bytes > MAX_KEY_BYTES - KEY_MARGIN) return bytes;
  }
  return undefined;
}

/**
 * A set that only removes records (retention, a subscription's deletion): let through at the
 * vault's size ceiling, as an erasure is, since it frees space.
 */
export function onlyFrees(set: WriteSet): boolean {
  const w: WebhookRecords = set.webhooks ?? {};
  if (!set.webhooks && !set.outbound) return false;
  if (!outboundOnlyFrees(set.outbound)) return false;
  if (set.entries.length > 0 || set.deadLetters || dedupeRecords(set).length > 0 || set.state || set.objects)
    return false;
  if (set.idempotency || set.vectors || set.embedding || set.changes?.length) return false;
  return !w.log?.length && !w.held?.length && !w.sources?.length;
}
