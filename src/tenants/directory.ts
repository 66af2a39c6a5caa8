import { ULID_RE } from "../models/common.ts";
import type { Role } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { vaultPresent } from "../vault/tenant-paths.ts";

/** One page of tenants in id (creation) order; `more` when another follows. */
export interface TenantListPage {
  tenants: Tenant[];
  more: boolean;
}

/**
 * What the API may read of tenants: which exist, their role libraries, whether a vault was ever
 * made. Read-only (every write goes through the system actor), and the one way routes reach the
 * system store and the data directory for it.
 */
export class TenantDirectory {
  constructor(
    private readonly store: SystemStore,
    private readonly dataDir: string,
  ) {}

  /** A malformed id names no tenant: it is never looked up. */
  get(tenantId: string): Tenant | undefined {
    return ULID_RE.test(tenantId) ? this.store.getTenant(tenantId) : undefined;
  }

  exists(tenantId: string): boolean {
    return this.get(tenantId) !== undefined;
  }

  count(): number {
    return this.store.tenantCount();
  }

  /** Up to `limit` tenants after the tenant id `after`. */
  page(limit: number, after?: string): TenantListPage {
    return this.store.listTenantsPage(limit, after);
  }

  /** The tenant's role library: the built-in `tenant_admin` first, then its own by name. */
  roles(tenantId: string): Role[] {
    return this.store.listRoles(tenantId);
  }

  role(tenantId: string, name: string): Role | undefined {
    return this.store.getRole(tenantId, name);
  }

  /**
   * Whether the tenant's vault exists on this node's disk. Asking a tenant actor opens (and so
   * creates) its vault: what only reads asks this first.
   */
  vaultPresent(tenantId: string): boolean {
    return ULID_RE.test(tenantId) && vaultPresent(this.dataDir, tenantId);
  }
}
