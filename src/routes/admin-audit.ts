import { existingTenantId } from "../http/auth.ts";
import { adminBase } from "./admin-guard.ts";
import type { Deps } from "./deps.ts";
import { limitOf } from "./query.ts";

/** The denial audit log, newest first (admin only). */
export const adminAuditRoutes = (deps: Deps) =>
  adminBase(deps, "routes.admin.audit", "/admin/audit").get(
    "/denials/:tenant_id",
    ({ params, query }) => {
      const tenantId = existingTenantId(deps.store, params.tenant_id);
      return { denials: deps.store.listDenials(tenantId, limitOf(query, 100, 1000)) };
    },
    { detail: { tags: ["admin"], summary: "Recent RBAC denials for the tenant" } },
  );
