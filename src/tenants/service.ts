/**
 * Tenants, the service side of `/tenants` and `/admin/tenants`: the directory read as list items,
 * and the lifecycle (create with its first tenant_admin token, suspend, resume, delete), which
 * audits each change itself (src/tenants/lifecycle.ts).
 */
import type { TokenService } from "../auth/tokens.ts";
import type { Config } from "../config/config.ts";
import { TENANT_ADMIN } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";
import { tenantCursor, tenantCursorOf } from "./cursor.ts";
import type { TenantDirectory } from "./directory.ts";
import type { TenantLifecycle } from "./lifecycle.ts";

/** Who a new tenant's first token is for. */
export const INITIAL_SUB = "tenant-admin";

export interface TenantServiceDeps {
  config: Pick<Config, "tokenTtlSeconds">;
  tenants: Pick<TenantDirectory, "get" | "page" | "roles">;
  lifecycle: Pick<TenantLifecycle, "create" | "setStatus" | "delete">;
  tokens: Pick<TokenService, "mint">;
}

/** A tenant as the lists answer it. */
export interface TenantListItem {
  tenant_id: string;
  name: string;
  status: Tenant["status"];
  role_count: number;
  created_at: string;
}

export class TenantService {
  constructor(private readonly deps: TenantServiceDeps) {}

  item(tenant: Tenant): TenantListItem {
    return {
      tenant_id: tenant.tenant_id,
      name: tenant.name,
      status: tenant.status,
      role_count: this.deps.tenants.roles(tenant.tenant_id).length,
      created_at: tenant.created_at,
    };
  }

  /** One page of every tenant, oldest first, after the opaque cursor (422 when not one of ours). */
  page(query: { limit?: number; cursor?: string }) {
    const after = query.cursor === undefined ? undefined : tenantCursorOf(query.cursor);
    const page = this.deps.tenants.page(query.limit ?? 100, after);
    const last = page.tenants[page.tenants.length - 1];
    return {
      tenants: page.tenants.map((t) => this.item(t)),
      next_cursor: page.more && last ? tenantCursor(last.tenant_id) : null,
    };
  }

  /** The caller's own tenant, as a one-item (or empty) list. */
  own(tenantId: string) {
    const own = this.deps.tenants.get(tenantId);
    return { tenants: own ? [this.item(own)] : [] };
  }

  name(tenantId: string): string | null {
    return this.deps.tenants.get(tenantId)?.name ?? null;
  }

  /** Creates the tenant (audited by the lifecycle) and mints its first tenant_admin token. */
  async create(name: string, by: string) {
    const tenant = await this.deps.lifecycle.create(name, by);
    const ttl = this.deps.config.tokenTtlSeconds;
    const { token } = await this.deps.tokens.mint({
      sub: INITIAL_SUB,
      tenantId: tenant.tenant_id,
      roles: [TENANT_ADMIN],
      ttlSeconds: ttl,
    });
    return {
      tenant_id: tenant.tenant_id,
      tenant_name: tenant.name,
      roles: [TENANT_ADMIN],
      token,
      ttl_seconds: ttl,
    };
  }

  async setStatus(tenantId: string, status: Tenant["status"], by: string): Promise<TenantListItem> {
    return this.item(await this.deps.lifecycle.setStatus(tenantId, status, by));
  }

  async delete(tenantId: string, by: string) {
    return { deleted: tenantId, removed: await this.deps.lifecycle.delete(tenantId, by) };
  }
}
