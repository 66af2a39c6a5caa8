import type { Database } from "lmdb";
import type { ReadOnlyTable, TablesOf } from "./tables.ts";
import { encodeVectorRecord, vectorRecordId } from "./vector-records.ts";
import type { EmbeddingRecords } from "./write-set.ts";

/** The embedder stamp is a meta key of its own (`embedder:<signature>`), the meta table holding numbers. */
const STAMP_PREFIX = "embedder:";
const STAMP_RANGE = { start: STAMP_PREFIX, end: "embedder;" };

/** The signature of the embedder the vault's vectors were made with, if one was recorded. */
export function embedderStamp(meta: ReadOnlyTable<number, string>): string | undefined {
  for (const key of meta.getKeys(STAMP_RANGE)) return key.slice(STAMP_PREFIX.length);
  return undefined;
}

/**
 * The plain puts of a write set's embedding part (joining its transaction). A reset reads the
 * committed tables it clears and requeues, so replaying it on the same entries (cluster mode's
 * changelog) does the same.
 */
export function putEmbeddingRecords(
  memory: TablesOf<"memory">,
  meta: Database<number, string>,
  records: EmbeddingRecords,
): void {
  if (records.reset) reset(memory, records.reset.requeue);
  const stamp = records.reset?.stamp ?? records.stamp;
  if (stamp !== undefined) putStamp(meta, stamp);
  for (const [seq, id] of records.queue ?? []) memory.embedQueue.put(seq, id);
  for (const [seq, id, vector] of records.done ?? []) {
    memory.embeddings.put(seq, encodeVectorRecord(id, vector));
    memory.embedQueue.remove(seq);
  }
  if (records.retier) retier(memory, records.retier);
  for (const [seq, id, vector] of records.fill ?? [])
    memory.embeddings.put(seq, encodeVectorRecord(id, vector));
}

/** A switch within the model's space: the table's vectors go (`drop-queued`) or are queued (`queue-vectored`). */
function retier(memory: TablesOf<"memory">, how: NonNullable<EmbeddingRecords["retier"]>): void {
  if (how === "drop-queued") {
    for (const seq of memory.embedQueue.getKeys()) memory.embeddings.remove(seq);
    return;
  }
  for (const { key, value } of memory.embeddings.getRange())
    memory.embedQueue.put(key, vectorRecordId(value as Uint8Array));
}

/** Every vector and queue record goes; every entry is queued again (`requeue`), by sequence. */
function reset(memory: TablesOf<"memory">, requeue: boolean): void {
  for (const seq of memory.embeddings.getKeys()) memory.embeddings.remove(seq);
  for (const seq of memory.embedQueue.getKeys()) memory.embedQueue.remove(seq);
  if (!requeue) return;
  // The index records hold every entry once, seq → [id, …]: no entry is decoded.
  for (const { key, value } of memory.rows.getRange()) memory.embedQueue.put(key, value[0]);
}

/**
 * Forgets which embedder made the vault's vectors (plain removes: in a transaction when called in
 * one). After an import the next open judges them afresh: by their length, queueing the entries
 * the export brought without a vector (embedder-check.ts).
 */
export function forgetEmbedderStamp(meta: Database<number, string>): void {
  for (const key of meta.getKeys(STAMP_RANGE)) meta.remove(key);
}

function putStamp(meta: Database<number, string>, stamp: string): void {
  for (const key of meta.getKeys(STAMP_RANGE)) if (key !== STAMP_PREFIX + stamp) meta.remove(key);
  meta.put(STAMP_PREFIX + stamp, 1);
}
