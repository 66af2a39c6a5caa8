import { NotFound } from "../errors.ts";
import { ULID_RE } from "../models/common.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { safeEcho } from "./safe-echo.ts";

/** Path tenant ids are checked before anything touches the disk: malformed or unknown → 404. */
export function existingTenantId(store: SystemStore, tenantId: string): string {
  if (!ULID_RE.test(tenantId) || !store.getTenant(tenantId))
    throw new NotFound(`no tenant ${safeEcho(tenantId)}`);
  return tenantId;
}
