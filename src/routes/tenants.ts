import { Elysia } from "elysia";
import { ValidationFailed } from "../errors.ts";
import { PageQuery, ULID_RE } from "../models/common.ts";
import { problems } from "../models/problem.ts";
import { Me, type Tenant, TenantPage } from "../models/tenant.ts";
import type { Deps } from "./deps.ts";

export function tenantItem(deps: Deps, tenant: Tenant) {
  return {
    tenant_id: tenant.tenant_id,
    name: tenant.name,
    status: tenant.status,
    role_count: deps.tenants.roles(tenant.tenant_id).length,
    created_at: tenant.created_at,
  };
}

export const TenantPageQuery = PageQuery(1000, 100);

/** One page of every tenant, oldest first: `?limit=1..1000` (default 100) and the opaque `?cursor=`. */
export function tenantPage(deps: Deps, query: { limit?: number; cursor?: string }) {
  const after = query.cursor === undefined ? undefined : tenantCursorOf(query.cursor);
  const page = deps.tenants.page(query.limit ?? 100, after);
  const last = page.tenants[page.tenants.length - 1];
  return {
    tenants: page.tenants.map((t) => tenantItem(deps, t)),
    next_cursor: page.more && last ? tenantCursor(last.tenant_id) : null,
  };
}

export function tenantCursor(tenantId: string): string {
  return Buffer.from(tenantId).toString("base64url");
}

/** The tenant id an opaque tenant-list cursor stands for; a cursor this API did not return → 422. */
export function tenantCursorOf(cursor: string): string {
  const id = cursor.length <= 64 ? Buffer.from(cursor, "base64url").toString("latin1") : "";
  if (!ULID_RE.test(id))
    throw new ValidationFailed("cursor is malformed", [
      { path: "/cursor", message: "not a cursor this API returned" },
    ]);
  return id;
}

/** `/tenants` and `/tenants/me`: what the calling token can see of tenants. */
export const tenantRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.tenants", prefix: "/tenants" })
    .use(deps.authPlugin)
    .get(
      "",
      ({ principal, req, query }) => {
        if (principal.admin) return tenantPage(deps, query);
        deps.guard.require(principal, "tenant:read", req);
        const own = deps.tenants.get(principal.tenantId);
        return { tenants: own ? [tenantItem(deps, own)] : [] };
      },
      {
        auth: "caller",
        query: TenantPageQuery,
        response: { 200: TenantPage, ...problems(401, 403, 422) },
        detail: { tags: ["tenants"], summary: "Tenants visible to the calling token (the operator's paged)" },
      },
    )
    .get(
      "/me",
      ({ principal }) => ({
        tenant_id: principal.tenantId,
        tenant_name: principal.admin ? "operator" : (deps.tenants.get(principal.tenantId)?.name ?? null),
        sub: principal.sub,
        roles: principal.roles,
        admin: principal.admin,
        expires_at: principal.expiresAt,
        ...(principal.reach
          ? { subject: principal.reach.subject, unscoped: principal.reach.unscoped ? "read" : "none" }
          : {}),
      }),
      {
        auth: "caller",
        response: { 200: Me, ...problems(401, 403) },
        detail: { tags: ["tenants"], summary: "Identity decoded from the calling token" },
      },
    );
