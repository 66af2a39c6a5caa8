import type { Group, TablesOf } from "../../src/vault/tables.ts";
import type { TenantVault } from "../../src/vault/tenant-vault.ts";

/**
 * A vault's tables with their writes, which `tablesOf` does not hand out: for a test that sets up
 * what an older version left on disk or makes a commit fail. The runtime never writes this way
 * (test/architecture.test.ts).
 */
export function writableTables<G extends Group>(vault: TenantVault, group: G): TablesOf<G> {
  return vault.tablesOf(group) as unknown as TablesOf<G>;
}
