import { Elysia } from "elysia";
import type { Guard } from "../auth/guard.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import {
  CreatedTenant,
  CreateTenantBody,
  Me,
  TenantItem,
  TenantPage,
  TenantParams,
  TenantRemoval,
} from "../models/tenant.ts";
import { TenantPageQuery } from "./model.ts";
import type { TenantService } from "./service.ts";

export interface TenantRouteDeps {
  http: HttpKit;
  tenants: TenantService;
  /** A tenant token listing tenants needs `tenant:read` (its denial is recorded). */
  guard: Pick<Guard, "require">;
}

const tags = ["admin"];

/** `/tenants` and `/tenants/me`: what the calling token can see of tenants. */
export const tenantRoutes = ({ http, tenants, guard }: TenantRouteDeps) =>
  new Elysia({ name: "routes.tenants", prefix: "/tenants" })
    .use(http.authPlugin)
    .get(
      "",
      ({ principal, req, query }) => {
        if (principal.admin) return tenants.page(query);
        guard.require(principal, "tenant:read", req);
        return tenants.own(principal.tenantId);
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
        tenant_name: principal.admin ? "operator" : tenants.name(principal.tenantId),
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

/** Tenants (create, list, suspend, resume, delete), admin only; token minting is src/tokens/. */
export const adminTenantRoutes = ({ http, tenants }: Omit<TenantRouteDeps, "guard">) =>
  new Elysia({ name: "routes.admin.tenants", prefix: "/admin" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .post(
      "/tenants",
      async ({ body, set, principal }) => {
        const created = await tenants.create(body.name, principal.sub);
        set.status = 201;
        return created;
      },
      {
        auth: "admin",
        ...validatedBody(CreateTenantBody),
        response: { 201: CreatedTenant, ...problems(400, 401, 403, 409, 413, 415, 422, 503, 507) },
        detail: { tags, summary: "Create a tenant and its first tenant_admin token" },
      },
    )
    .get("/tenants", ({ query }) => tenants.page(query), {
      auth: "admin",
      query: TenantPageQuery,
      response: { 200: TenantPage, ...problems(401, 403, 422) },
      detail: { tags, summary: "All tenants with status and role count, paged" },
    })
    .post(
      "/tenants/:tenant_id/suspend",
      ({ tenant, principal }) => tenants.setStatus(tenant.tenant_id, "suspended", principal.sub),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        response: { 200: TenantItem, ...problems(401, 403, 404, 507) },
        detail: {
          tags,
          summary:
            "Suspend a tenant: its tokens get 403, its events wait as dead letters, its connectors stop",
        },
      },
    )
    .post(
      "/tenants/:tenant_id/resume",
      ({ tenant, principal }) => tenants.setStatus(tenant.tenant_id, "active", principal.sub),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        response: { 200: TenantItem, ...problems(401, 403, 404, 507) },
        detail: { tags, summary: "Resume a suspended tenant" },
      },
    )
    .delete(
      "/tenants/:tenant_id",
      ({ tenant, principal }) => tenants.delete(tenant.tenant_id, principal.sub),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        // 503: cluster mode answers once the tenant's partition is compacted; retry when it could not be.
        response: { 200: TenantRemoval, ...problems(401, 403, 404, 409, 503, 507) },
        detail: { tags, summary: "Erase a suspended tenant (else 409): its vault, roles and audit records" },
      },
    );
