import type { Database, Key } from "lmdb";
import { COUNTER_KEY_RE } from "../../../src/models/tenant-export.ts";
import type { Group, TablesOf } from "../../../src/vault/tables.ts";

/**
 * The tables an export reads and an import writes: every group of the vault but `outbound`
 * (subscriptions hold signing secrets). The derivable indexes are written on import, never exported.
 */
export type TransferTables = TablesOf<"memory"> &
  TablesOf<"ingest"> &
  TablesOf<"erase"> &
  TablesOf<"log"> &
  TablesOf<"vault">;

const TRANSFERRED = ["memory", "ingest", "erase", "log", "vault"] as const satisfies Group[];

/** Opens the transferred groups through `open` (handles of their own, without read cache). */
export function openTransferTables(open: <G extends Group>(group: G) => TablesOf<G>): TransferTables {
  return Object.assign({}, ...TRANSFERRED.map((group) => open(group))) as TransferTables;
}

/** Drops whatever an import wrote (the vault was empty before it): plain writes, in a transaction. */
export function clearImported(h: TransferTables): void {
  // Connector state is not cleared: an import writes it in its last transaction only, so the
  // state of the tenant's own connectors survives an aborted import.
  const all = [
    h.entries,
    h.rows,
    h.embeddings,
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
