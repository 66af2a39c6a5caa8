import { Type } from "@sinclair/typebox";
import { PageQuery } from "../models/common.ts";

/** The tenant list's `?limit=1..1000` (default 100) and opaque `?cursor=`. */
export const TenantPageQuery = PageQuery(1000, 100);

/** A role's path: the tenant and one role name of its library. */
export const RoleParams = Type.Object({
  tenant_id: Type.String(),
  role_name: Type.String({
    maxLength: 256,
    description:
      "A role of the tenant's library (404 otherwise); the built-in tenant_admin cannot be deleted (422)",
  }),
});
