import { Elysia } from "elysia";
import { NotFound } from "../errors/domain-errors.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { safeEcho } from "../http/safe-echo.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { ROLE_NAME_RE, Role, RoleBody, RoleDeleted, RoleList } from "../models/role.ts";
import { TenantParams } from "../models/tenant.ts";
import { RoleParams } from "./model.ts";
import type { RoleService } from "./role-service.ts";

export interface RoleRouteDeps {
  http: HttpKit;
  roles: RoleService;
}

const tags = ["admin"];

/** The tenant's role library (admin only). */
export const roleRoutes = ({ http, roles }: RoleRouteDeps) =>
  new Elysia({ name: "routes.admin.roles", prefix: "/admin/roles" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get("/:tenant_id", ({ tenant }) => ({ roles: roles.list(tenant.tenant_id) }), {
      auth: "admin",
      tenant: "any",
      params: TenantParams,
      response: { 200: RoleList, ...problems(401, 403, 404) },
      detail: { tags, summary: "List the tenant's role library" },
    })
    .post(
      "/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const result = await roles.put(tenant.tenant_id, body, principal.sub);
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
      ({ tenant, params, principal }) => {
        if (!ROLE_NAME_RE.test(params.role_name)) throw new NotFound(`no role ${safeEcho(params.role_name)}`);
        return roles.delete(tenant.tenant_id, params.role_name, principal.sub);
      },
      {
        auth: "admin",
        tenant: "any",
        params: RoleParams,
        response: { 200: RoleDeleted, ...problems(401, 403, 404, 422, 507) },
        detail: { tags, summary: "Delete a role (its power leaves live tokens at once)" },
      },
    );
