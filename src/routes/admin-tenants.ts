import { Elysia } from "elysia";
import { requireDefinedRoles, tenantLabel } from "../auth/defined-roles.ts";
import { ValidationFailed } from "../errors.ts";
import { validatedBody } from "../http/validate-body.ts";
import { isoOf } from "../models/common.ts";
import { problems } from "../models/problem.ts";
import { MintedToken, MintTokenBody, TENANT_ADMIN } from "../models/role.ts";
import {
  CreatedTenant,
  CreateTenantBody,
  TenantItem,
  TenantPage,
  TenantParams,
  TenantRemoval,
} from "../models/tenant.ts";
import type { Deps } from "./deps.ts";
import { TenantPageQuery, tenantItem, tenantPage } from "./tenants.ts";

const INITIAL_SUB = "tenant-admin";
const DEFAULT_SUB = "agent";
const tags = ["admin"];

/** Tenants (create, list, suspend, resume, delete) and token minting (admin only). */
export const adminTenantRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.tenants", prefix: "/admin" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .post(
      "/tenants",
      async ({ body, set, principal }) => {
        const tenant = await deps.lifecycle.create(body.name, principal.sub);
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
        auth: "admin",
        ...validatedBody(CreateTenantBody),
        response: { 201: CreatedTenant, ...problems(400, 401, 403, 409, 413, 415, 422, 503, 507) },
        detail: { tags, summary: "Create a tenant and its first tenant_admin token" },
      },
    )
    .get("/tenants", ({ query }) => tenantPage(deps, query), {
      auth: "admin",
      query: TenantPageQuery,
      response: { 200: TenantPage, ...problems(401, 403, 422) },
      detail: { tags, summary: "All tenants with status and role count, paged" },
    })
    .post(
      "/tenants/:tenant_id/suspend",
      async ({ tenant, principal }) => {
        const tenantId = tenant.tenant_id;
        return tenantItem(deps, await deps.lifecycle.setStatus(tenantId, "suspended", principal.sub));
      },
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
      async ({ tenant, principal }) => {
        const tenantId = tenant.tenant_id;
        return tenantItem(deps, await deps.lifecycle.setStatus(tenantId, "active", principal.sub));
      },
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
      async ({ tenant, principal }) => {
        const tenantId = tenant.tenant_id;
        return { deleted: tenantId, removed: await deps.lifecycle.delete(tenantId, principal.sub) };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        // 503: cluster mode answers once the tenant's partition is compacted; retry when it could not be.
        response: { 200: TenantRemoval, ...problems(401, 403, 404, 409, 503, 507) },
        detail: { tags, summary: "Erase a suspended tenant (else 409): its vault, roles and audit records" },
      },
    )
    .post(
      "/jwt/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const tenantId = tenant.tenant_id;
        const library = deps.tenants.roles(tenantId).map((r) => r.name);
        requireDefinedRoles(body.roles, library, tenantLabel(tenantId, tenant.name));
        const ttl = body.ttl_seconds ?? deps.config.tokenTtlSeconds;
        const sub = body.sub ?? DEFAULT_SUB;
        const roles = [...new Set(body.roles)];
        // A subject-restricted token (src/auth/subject-scope.ts); `unscoped` means nothing without it.
        const { subject, unscoped } = body;
        if (unscoped !== undefined && subject === undefined)
          throw new ValidationFailed("unscoped: only with subject", [
            { path: "/unscoped", message: "give subject too" },
          ]);
        const restriction = subject === undefined ? {} : { subject, ...(unscoped ? { unscoped } : {}) };
        const { token, claims } = await deps.tokens.mint({
          sub,
          tenantId,
          roles,
          ttlSeconds: ttl,
          ...restriction,
        });
        // The token itself is never recorded: who it is for, its roles and lifetime are.
        await deps.audit({
          action: "token.minted",
          sub: principal.sub,
          tenant_id: tenantId,
          target: sub,
          details: { roles, ttl_seconds: ttl, jti: claims.jti, ...restriction },
        });
        set.status = 201;
        return {
          token,
          tenant_id: tenantId,
          sub,
          roles,
          ttl_seconds: ttl,
          expires_at: isoOf(claims.exp * 1000),
          ...restriction,
        };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...validatedBody(MintTokenBody),
        response: { 201: MintedToken, ...problems(400, 401, 403, 404, 413, 415, 422, 507) },
        detail: { tags, summary: "Mint a role-scoped token for a tenant" },
      },
    );
