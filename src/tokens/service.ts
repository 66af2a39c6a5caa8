/**
 * Minting a role-scoped token for a tenant (`POST /admin/jwt/{tenant_id}`): the roles checked
 * against the tenant's library, the token signed (src/auth/tokens.ts), then recorded in the admin
 * audit log (who it is for, its roles and lifetime: never the token) before it is answered.
 */
import { requireDefinedRoles, tenantLabel } from "../auth/defined-roles.ts";
import type { TokenService } from "../auth/tokens.ts";
import type { Config } from "../config/config.ts";
import { ValidationFailed } from "../errors/domain-errors.ts";
import { isoOf } from "../models/common.ts";
import type { MintTokenBody } from "../models/role.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";

const DEFAULT_SUB = "agent";

export interface TokenMintingServiceDeps {
  config: Pick<Config, "tokenTtlSeconds">;
  tenants: Pick<TenantDirectory, "roles">;
  tokens: Pick<TokenService, "mint">;
  audit: AdminAuditSink;
}

export class TokenMintingService {
  constructor(private readonly deps: TokenMintingServiceDeps) {}

  /** Mints the token; a role the tenant does not hold, or `unscoped` without `subject`, is a 422. */
  async mint(tenant: { tenant_id: string; name?: string }, body: MintTokenBody, by: string) {
    const library = this.deps.tenants.roles(tenant.tenant_id).map((r) => r.name);
    requireDefinedRoles(body.roles, library, tenantLabel(tenant.tenant_id, tenant.name));
    const tenantId = tenant.tenant_id;
    const ttl = body.ttl_seconds ?? this.deps.config.tokenTtlSeconds;
    const sub = body.sub ?? DEFAULT_SUB;
    const roles = [...new Set(body.roles)];
    // A subject-restricted token (src/auth/subject-scope.ts); `unscoped` means nothing without it.
    const { subject, unscoped } = body;
    if (unscoped !== undefined && subject === undefined)
      throw new ValidationFailed("unscoped: only with subject", [
        { path: "/unscoped", message: "give subject too" },
      ]);
    const restriction = subject === undefined ? {} : { subject, ...(unscoped ? { unscoped } : {}) };
    const { token, claims } = await this.deps.tokens.mint({
      sub,
      tenantId,
      roles,
      ttlSeconds: ttl,
      ...restriction,
    });
    await this.deps.audit({
      action: "token.minted",
      sub: by,
      tenant_id: tenantId,
      target: sub,
      details: { roles, ttl_seconds: ttl, jti: claims.jti, ...restriction },
    });
    return {
      token,
      tenant_id: tenantId,
      sub,
      roles,
      ttl_seconds: ttl,
      expires_at: isoOf(claims.exp * 1000),
      ...restriction,
    };
  }
}
