import { Elysia } from "elysia";
import type { Tenant } from "../models/tenant.ts";
import type { Deps } from "./deps.ts";
import { resolvePrincipal } from "./principal.ts";

export function tenantItem(deps: Deps, tenant: Tenant) {
  return {
    tenant_id: tenant.tenant_id,
    name: tenant.name,
    status: tenant.status,
    role_count: deps.store.listRoles(tenant.tenant_id).length,
    created_at: tenant.created_at,
  };
}

/** `/tenants` and `/tenants/me`: what the calling token can see of tenants. */
export const tenantRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.tenants", prefix: "/tenants" })
    .derive(({ request }) => resolvePrincipal(deps, request))
    .get(
      "",
      ({ principal, req }) => {
        if (principal.admin) return { tenants: deps.store.listTenants().map((t) => tenantItem(deps, t)) };
        deps.guard.require(principal, "tenant:read", req);
        const own = deps.store.getTenant(principal.tenantId);
        return { tenants: own ? [tenantItem(deps, own)] : [] };
      },
      { detail: { tags: ["tenants"], summary: "Tenants visible to the calling token" } },
    )
    .get(
      "/me",
      ({ principal }) => ({
        tenant_id: principal.tenantId,
        tenant_name: principal.admin ? "operator" : (deps.store.getTenant(principal.tenantId)?.name ?? null),
        sub: principal.sub,
        roles: principal.roles,
        admin: principal.admin,
        expires_at: principal.expiresAt,
      }),
      { detail: { tags: ["tenants"], summary: "Identity decoded from the calling token" } },
    );
