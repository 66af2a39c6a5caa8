import { NotFound } from "../errors.ts";
import { existingTenantId, safeEcho } from "../http/auth.ts";
import { validatedBody } from "../http/validate-body.ts";
import { ROLE_NAME_RE, RoleBody } from "../models/role.ts";
import { adminBase } from "./admin-guard.ts";
import type { Deps } from "./deps.ts";

/** The tenant's role library (admin only). */
export const adminRoleRoutes = (deps: Deps) =>
  adminBase(deps, "routes.admin.roles", "/admin/roles")
    .get(
      "/:tenant_id",
      ({ params }) => ({ roles: deps.store.listRoles(existingTenantId(deps.store, params.tenant_id)) }),
      {
        detail: { tags: ["admin"], summary: "List the tenant's role library" },
      },
    )
    .post(
      "/:tenant_id",
      async ({ params, body, set }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        const role = { name: body.name, permissions: body.permissions, description: body.description ?? "" };
        const result = await deps.system.ask({ type: "role.put", tenantId, role });
        set.status = result.replaced ? 200 : 201;
        return result.role;
      },
      { ...validatedBody(RoleBody), detail: { tags: ["admin"], summary: "Create or replace a role" } },
    )
    .delete(
      "/:tenant_id/:role_name",
      ({ params }) => {
        const tenantId = existingTenantId(deps.store, params.tenant_id);
        if (!ROLE_NAME_RE.test(params.role_name)) throw new NotFound(`no role ${safeEcho(params.role_name)}`);
        return deps.system.ask({ type: "role.delete", tenantId, name: params.role_name });
      },
      { detail: { tags: ["admin"], summary: "Delete a role (its power leaves live tokens at once)" } },
    );
