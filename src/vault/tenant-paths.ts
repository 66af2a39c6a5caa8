import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ULID_RE } from "../models/common.ts";

/** The vault directory of a tenant. Refuses anything but a ULID, so no path can escape the data dir. */
export function tenantDir(dataDir: string, tenantId: string): string {
  if (!ULID_RE.test(tenantId)) throw new TypeError("tenant id must be a ULID");
  return join(dataDir, "tenants", tenantId);
}

export function vaultPresent(dataDir: string, tenantId: string): boolean {
  return existsSync(join(tenantDir(dataDir, tenantId), "data.mdb"));
}

/** Removes a tenant's vault directory (a creation that failed, or an erased tenant). */
export function removeTenantDir(dataDir: string, tenantId: string): void {
  rmSync(tenantDir(dataDir, tenantId), { recursive: true, force: true });
}
