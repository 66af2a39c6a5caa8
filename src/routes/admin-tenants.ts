import { ValidationFailed } from "../errors.ts";
import { existingTenantId } from "../http/auth.ts";
import { validatedBody } from "../http/validate-body.ts";
import { isoOf } from "../models/common.ts";
import { MintTokenBody, TENANT_ADMIN } from "../models/role.ts";
import { CreateTenantBody } from "../models/tenant.ts";
import { adminBase } from "./admin-guard.ts";
import type { Deps } from "./deps.ts";
import { tenantItem } from "./tenants.ts";

const INITIAL_SUB = "tenant-admin";
const DEFAULT_SUB = "agent";

/** Tenant creation, listing and token minting (admin only). */
export const adminTenantRoutes = (deps: Deps) =>
  adminBase(deps, "routes.admin.tenants", "/admin")
    .post(
      "/tenants",
      async ({ body, set }) => {
        const tenant = await deps.system.ask({ type: "tenant.create", name: body.name });
        await deps.tenant(tenant.tenant_id).ask({ type: "tenant.init" });
        const ttl = deps.config.tokenTtlSeconds;
        const { token } = await deps.tokens.mint({
          sub: INITIAL_SUB,
          tenantId: tenant.tenant_id,
          roles: [TENANT_ADMIN],
          ttlSeconds: ttl,
        });
        set.status = 201;
        return {
          tenant_id: tenant.tenant_id,
          tenant_name: tenant.name,
          roles: [TENANT_ADMIN],
          token,
          ttl_seconds: ttl,
        };
      },
      {
        ...validatedBody(CreateTenantBody),
        detail: { tags: ["admin"], summary: "Create a tenant and its first tenant_admin token" },
      },
    )
    .get("/tenants", () => ({ tenants: deps.store.listTenants().map((t) => tenantItem(deps, t)) }), {
      detail: { tags: ["admin"], summary: "All tenants with status and role count" },
    })
    .post(
      "/jwt/:tenant_id",
      async ({ params, body, set }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        const unknown = body.roles.filter((r) => !deps.store.getRole(tenantId, r));
        if (unknown.length > 0) {
          throw new ValidationFailed(`unknown role(s): ${unknown.join(", ")}`, [
            { path: "/roles", message: "every role must exist in the tenant's library" },
          ]);
        }
        const ttl = body.ttl_seconds ?? deps.config.tokenTtlSeconds;
        const sub = body.sub ?? DEFAULT_SUB;
        const roles = [...new Set(body.roles)];
        const { token, claims } = await deps.tokens.mint({ sub, tenantId, roles, ttlSeconds: ttl });
        set.status = 201;
        return {
          token,
          tenant_id: tenantId,
          sub,
          roles,
          ttl_seconds: ttl,
          expires_at: isoOf(claims.exp * 1000),
        };
      },
      {
        ...validatedBody(MintTokenBody),
        detail: { tags: ["admin"], summary: "Mint a role-scoped token for a tenant" },
      },
    );
