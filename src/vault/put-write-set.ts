import type { StoredEntry } from "../models/stored-entry.ts";
import { putEmbeddingRecords } from "./embedding-records.ts";
import { entryRow } from "./entry-rows.ts";
import { MAX_LOG_KEY, type OutboundRecords } from "./outbound-records.ts";
import type { TablesOf } from "./tables.ts";
import { encodeVectorRecord } from "./vector-records.ts";
import { heldIdKey, type WebhookRecords } from "./webhook-records.ts";
import { dedupeRecords, type WriteSet } from "./write-set.ts";

/** The tables a write set's entry, ingest and embedding parts go to. */
export interface WrittenTables {
  memory: TablesOf<"memory">;
  ingest: TablesOf<"ingest">;
  vault: TablesOf<"vault">;
}

/**
 * The plain puts of a write set's entries, vectors, idempotency record, ingest records and the
 * background embedder's records (embedding-records.ts), issued
 * in one synchronous run so lmdb-js puts them into one transaction. `state` is the connector
 * state left after the sequence check (StateSeqs.newer).
 */
export function putWriteSet(t: WrittenTables, set: WriteSet, state: Array<[string, unknown]>): void {
  const { memory, ingest } = t;
  // An update rewrites the entry's index record too (its time axes changed).
  for (const s of set.entries) putEntry(memory, s);
  if (set.vectors && set.vectors.length > 0) {
    const seqs = new Map(set.created.map((s) => [s.entry.id, s.seq]));
    for (const [id, vec] of set.vectors) {
      const seq = seqs.get(id);
      if (seq !== undefined) memory.embeddings.put(seq, encodeVectorRecord(id, vec));
    }
  }
  for (const [key, id] of set.objects ?? []) ingest.objects.put(key, id);
  for (const [key, value] of set.deadLetters ?? []) ingest.deadLetters.put(key, value);
  // A null value removes its key (a queue record settled: the model extractor's `extract:` jobs).
  for (const [key, value] of state)
    value === null ? ingest.connectorState.remove(key) : ingest.connectorState.put(key, value);
  if (set.idempotency) memory.idempotency.put(set.idempotency.key, set.idempotency.record);
  for (const { key, record } of dedupeRecords(set)) ingest.dedupe.put(key, record);
  if (set.embedding) putEmbeddingRecords(memory, t.vault.meta, set.embedding);
  if (set.webhooks) putWebhookRecords(ingest, set.webhooks);
}

/** An entry and its index record (entry-rows.ts); an import writes exactly these too. */
export function putEntry(memory: TablesOf<"memory">, s: StoredEntry): void {
  memory.entries.put(s.seq, s);
  memory.entryIds.put(s.entry.id, s.seq);
  memory.rows.put(s.seq, entryRow(s));
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
 * The plain puts and removals of a write set's outbound part, joining its transaction. A deletion
 * reads the committed delivery log it clears, so replaying it (cluster mode) does the same; what
 * is still staged of that log comes named in `purgedDeliveries`.
 */
export function putOutboundRecords(outbound: TablesOf<"outbound">, records: OutboundRecords): void {
  const { subscriptions, deliveries } = outbound;
  for (const s of records.subscriptions ?? []) subscriptions.put(s.id, s);
  for (const [key, delivery] of records.deliveries ?? []) deliveries.put(key, delivery);
  for (const key of records.purgedDeliveries ?? []) deliveries.remove(key);
  for (const id of records.deleted ?? []) {
    subscriptions.remove(id);
    for (const key of deliveries.getKeys({ start: [id, 0], end: [id, MAX_LOG_KEY] })) deliveries.remove(key);
  }
}
