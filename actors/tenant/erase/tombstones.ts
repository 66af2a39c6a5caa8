import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { Tombstone } from "../../../src/vault/write-set.ts";

/**
 * What erasure leaves of an erased entry: a tombstone `{id, category, recorded_at, erased_at,
 * erased_by, created_by}`, so a reference to it stays explainable (a read answers 410, history shows when).
 */
export class Tombstones {
  private readonly tables: TableViews<"erase">;

  constructor(vault: TenantVault) {
    this.tables = vault.tablesOf("erase");
  }

  /** The trace of an erased entry, if `id` was erased. */
  of(id: string): Tombstone | undefined {
    return this.tables.tombstones.get(id);
  }
}

export function tombstoneOf(stored: StoredEntry, now: number, by: string): Tombstone {
  return {
    id: stored.entry.id,
    category: stored.entry.category as Category,
    recorded_at: stored.entry.recorded_at,
    erased_at: isoOf(now),
    erased_by: by,
    created_by: stored.entry.created_by,
  };
}
