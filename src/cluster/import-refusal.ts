/**
 * Tenant imports in cluster mode (docs/cluster.md, "Where a tenant's data lives"): an import writes
 * the vault in batches of its own (begin, batches, finish or abort), not through vault write sets,
 * so none of it would reach the partition changelog and the next takeover would silently lose it.
 * Until imports are logged, the owner refuses them with a 409 that says why; nothing is written.
 * The route's own checks (credentials, tenant, media type) still answer first.
 */
import { Conflict } from "../errors.ts";
import type { ExportImport } from "../tenants/export-import.ts";

export const IMPORT_REFUSED =
  "tenant imports are not available in cluster mode: an import is not written to the partition " +
  "changelog, so it would not survive the partition moving to another node; import on a single node, " +
  "or create the tenant's entries through the API";

export function refuseImports(exportImport: ExportImport): void {
  exportImport.import = async () => {
    throw new Conflict(IMPORT_REFUSED);
  };
}
