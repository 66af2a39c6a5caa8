/**
 * What opening a vault of an earlier layout takes: each step is idempotent and runs on every open
 * (cheap when there is nothing to do).
 */
import type { Database, Key, RootDatabase } from "lmdb";
import { type EntryRow, entryRow, ROW_LENGTH } from "./entry-rows.ts";
import { storedCount, type TablesOf } from "./tables.ts";
import { encodeVectorRecord } from "./vector-records.ts";

/** Legacy high-water mark of the sequence; the category index is the source of truth now. */
const SEQ_KEY = "seq";

/** The highest sequence number in use: the newest index record's (or the legacy mark). */
export function lastSeq(meta: Database<number, string>, memory: TablesOf<"memory">): number {
  let max = meta.get(SEQ_KEY) ?? 0;
  for (const key of memory.rows.getKeys({ reverse: true, limit: 1 })) max = Math.max(max, key);
  return max;
}

/** The index tables of the earlier layout: [category, seq], [tag, seq], [valid_from, seq] → id. */
const EARLIER_INDEXES = ["by-category", "by-tag", "by-valid"];

/**
 * Vaults of the earlier layout kept three index tables (keys per category, per tag, per valid_from);
 * one index record per entry replaces them (entry-rows.ts): written from the entries once, the
 * old tables emptied in the same transaction. A vault whose old category index is empty has
 * nothing to migrate (new vaults, and vaults migrated already).
 */
export function migrateEntryRows(root: RootDatabase, memory: TablesOf<"memory">): void {
  // The root database lists the named ones: a vault without them is not opened into holding them.
  const names = new Set([...root.getKeys()].map(String));
  const old = EARLIER_INDEXES.filter((name) => names.has(name)).map(
    (name) => root.openDB({ name }) as Database<unknown, Key>,
  );
  if (old.every((db) => storedCount(db) === 0)) return;
  root.transactionSync(() => {
    for (const { value } of memory.entries.getRange()) memory.rows.put(value.seq, entryRow(value));
  });
  // Emptied once the records are committed: a crash between leaves a migration to redo, not a loss.
  for (const db of old) db.clearSync();
}

/** Vaults of the first layout keyed vectors by entry id: rekeyed by sequence number once. */
export function migrateVectorKeys(root: RootDatabase, memory: TablesOf<"memory">): void {
  const legacy = memory.embeddings as unknown as Database<Buffer, number | string>;
  const byId: Array<[string, Buffer]> = [];
  for (const { key, value } of legacy.getRange({ start: "" }))
    if (typeof key === "string") byId.push([key, value]);
  if (byId.length === 0) return;
  root.transactionSync(() => {
    for (const [id, bytes] of byId) {
      legacy.remove(id);
      const seq = memory.entryIds.get(id);
      if (seq === undefined) continue;
      const vec = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vec.buffer).set(bytes);
      legacy.put(seq, encodeVectorRecord(id, vec));
    }
  });
}

/**
 * Every index record, oldest first, for the summary to load. Records written before scopes lack
 * the entry's subject, session and agent (entry-rows.ts): each is made again from its entry, and
 * the remade ones are stored once the scan is over, so the next open reads them as they are.
 */
export function* currentRows(root: RootDatabase, memory: TablesOf<"memory">): Generator<[number, EntryRow]> {
  const remade: Array<[number, EntryRow]> = [];
  for (const { key, value } of memory.rows.getRange()) {
    const stored = value.length < ROW_LENGTH ? memory.entries.get(key) : undefined;
    const row = stored ? entryRow(stored) : value;
    if (stored) remade.push([key, row]);
    yield [key, row];
  }
  if (remade.length === 0) return;
  root.transactionSync(() => {
    for (const [key, row] of remade) memory.rows.put(key, row);
  });
}
