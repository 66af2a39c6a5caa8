import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { NotFound } from "../errors.ts";
import { safeEcho } from "../http/safe-echo.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { ROLE_NAME_RE, Role, RoleBody, RoleDeleted, RoleList } from "../models/role.ts";
import { TenantParams } from "../models/tenant.ts";
import type { Deps } from "./deps.ts";

const RoleParams = Type.Object({
  tenant_id: Type.String(),
  role_name: Type.String({
    maxLength: 256,
    description:
      "A role of the tenant's library (404 otherwise); the built-in tenant_admin cannot be deleted (422)",
  }),
});
const tags = ["admin"];

/** The tenant's role library (admin only). */
export const adminRoleRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.roles", prefix: "/admin/roles" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get("/:tenant_id", ({ tenant }) => ({ roles: deps.tenants.roles(tenant.tenant_id) }), {
      auth: "admin",
      tenant: "any",
      params: TenantParams,
      response: { 200: RoleList, ...problems(401, 403, 404) },
      detail: { tags, summary: "List the tenant's role library" },
    })
    .post(
      "/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const tenantId = tenant.tenant_id;
        const role = { name: body.name, permissions: body.permissions, description: body.description ?? "" };
        const result = await deps.system.ask({ type: "role.put", tenantId, role });
        await deps.audit({
          action: result.replaced ? "role.replaced" : "role.created",
          sub: principal.sub,
          tenant_id: tenantId,
          target: role.name,
          details: { permissions: result.role.permissions },
        });
        set.status = result.replaced ? 200 : 201;
        return result.role;
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...validatedBody(RoleBody),
        response: { 200: Role, 201: Role, ...problems(400, 401, 403, 404, 413, 415, 422, 507) },
        detail: { tags, summary: "Create (201) or replace (200) a role" },
      },
    )
    .delete(
      "/:tenant_id/:role_name",
      async ({ tenant, params, principal }) => {
        const tenantId = tenant.tenant_id;
        if (!ROLE_NAME_RE.test(params.role_name)) throw new NotFound(`no role ${safeEcho(params.role_name)}`);
        const deleted = await deps.system.ask({ type: "role.delete", tenantId, name: params.role_name });
        await deps.audit({
          action: "role.deleted",
          sub: principal.sub,
          tenant_id: tenantId,
          target: params.role_name,
          details: {},
        });
        return deleted;
      },
      {
        auth: "admin",
        tenant: "any",
        params: RoleParams,
        response: { 200: RoleDeleted, ...problems(401, 403, 404, 422, 507) },
        detail: { tags, summary: "Delete a role (its power leaves live tokens at once)" },
      },
    );
