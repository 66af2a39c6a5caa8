import type { Database, Key } from "lmdb";
import { ValidationFailed } from "../errors/domain-errors.ts";
import type { Change } from "../models/change.ts";
import type { StoredEntry } from "../models/stored-entry.ts";
import { COUNTER_KEY_RE, type VaultRecord } from "../models/tenant-export.ts";
import { byEntryKey } from "./change-log.ts";
import { putEntry } from "./put-write-set.ts";
import { type Group, openEnvironment, openGroup, type TablesOf } from "./tables.ts";
import { encodeVectorRecord } from "./vector-records.ts";

/**
 * The tables an export reads and an import writes: every group of the vault but `outbound`
 * (subscriptions hold signing secrets). The derivable indexes are written on import, never exported.
 */
export type ImportTables = TablesOf<"memory"> &
  TablesOf<"ingest"> &
  TablesOf<"erase"> &
  TablesOf<"log"> &
  TablesOf<"vault">;

/** The groups an export reads and an import writes. */
export const TRANSFERRED = ["memory", "ingest", "erase", "log", "vault"] as const satisfies Group[];

/** The key of a dead letter (the ingest slice's `deadLetterKey`: the vault does not know the rule). */
export type DeadLetterKeyOf = (eventId: string, source: string) => string;

/** The transferred groups opened through `open` (handles of their own, without read cache). */
export function openImportTables(open: <G extends Group>(group: G) => TablesOf<G>): ImportTables {
  return Object.assign({}, ...TRANSFERRED.map((group) => open(group))) as ImportTables;
}

/** The table of each record type put as it comes, under its own key. */
const KEYED = {
  object: "objects",
  dedupe: "dedupe",
  idempotency: "idempotency",
  connector_state: "connectorState",
  tombstone: "tombstones",
  counter: "meta",
} as const satisfies Partial<Record<VaultRecord["type"], keyof ImportTables>>;

/** The plain puts of one import batch's records: in a transaction when called in one. */
export function putImported(h: ImportTables, batch: VaultRecord[], deadLetterKey: DeadLetterKeyOf): void {
  for (const record of batch) putRecord(h, record, deadLetterKey);
}

function putRecord(h: ImportTables, record: VaultRecord, deadLetterKey: DeadLetterKeyOf): void {
  switch (record.type) {
    case "entry":
      // The entry and its index record exactly as the vault writes them.
      putEntry(h, record.value as StoredEntry);
      return;
    case "embedding": {
      // Stored under its entry's sequence number (vector-records.ts); entries come first in an export.
      const seq = h.entryIds.get(record.key);
      if (seq === undefined) throw new ValidationFailed(`an embedding of no imported entry (${record.key})`);
      const bytes = Buffer.from(record.value, "base64");
      const vec = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vec.buffer).set(bytes);
      h.embeddings.put(seq, encodeVectorRecord(record.key, vec));
      // A table vector the importing runtime (`tiered`) upgrades: the import parser keeps `tier`
      // only then (src/transfer/export-import.ts), and the queue record is the upgrade to come.
      if (record.tier === "static") h.embedQueue.put(seq, record.key);
      return;
    }
    case "dead_letter":
      h.deadLetters.put(deadLetterKey(record.value.event_id, record.value.source), record.value);
      return;
    case "change": {
      h.changes.put(record.value.seq, record.value as Change);
      const key = byEntryKey(record.value as Change);
      if (key) h.changesByEntry.put(key, record.value.type);
      return;
    }
    default:
      // The keyed records go as they come, under their own key.
      (h[KEYED[record.type]] as Database<unknown, string>).put(record.key, record.value);
  }
}

/** Drops whatever an import wrote (the vault was empty before it): plain writes, in a transaction. */
export function clearImported(h: ImportTables): void {
  // Connector state is not cleared: an import writes it in its last transaction only, so the
  // state of the tenant's own connectors survives an aborted import.
  const all = [
    h.entries,
    h.entryIds,
    h.rows,
    h.embeddings,
    h.embedQueue,
    h.objects,
    h.deadLetters,
    h.dedupe,
    h.idempotency,
    h.changes,
    h.changesByEntry,
    h.tombstones,
  ] as Database<unknown, Key>[];
  for (const db of all) db.clearSync();
  for (const key of [...h.meta.getKeys()])
    if (typeof key === "string" && COUNTER_KEY_RE.test(key)) h.meta.remove(key);
}

/** Clears an unfinished import from the closed vault in `dir`, in one transaction. */
export function clearImportedIn(dir: string): void {
  const root = openEnvironment(dir);
  try {
    const h = openImportTables((group) => openGroup(root, group, { cache: false }));
    root.transactionSync(() => clearImported(h));
  } finally {
    void root.close();
  }
}
