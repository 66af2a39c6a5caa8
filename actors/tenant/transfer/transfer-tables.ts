import { TRANSFERRED } from "../../../src/vault/import-records.ts";
import type { Group, TableViews } from "../../../src/vault/tables.ts";

/**
 * The tables an export reads and an import checks: every group of the vault but `outbound`
 * (subscriptions hold signing secrets), read only; the import writes through the vault
 * (src/vault/import-records.ts). The derivable indexes are written on import, never exported.
 */
export type TransferTables = TableViews<"memory"> &
  TableViews<"ingest"> &
  TableViews<"erase"> &
  TableViews<"log"> &
  TableViews<"vault">;

/** Opens the transferred groups through `open` (handles of their own, without read cache). */
export function openTransferTables(open: <G extends Group>(group: G) => TableViews<G>): TransferTables {
  return Object.assign({}, ...TRANSFERRED.map((group) => open(group))) as TransferTables;
}
