import type { AdminEvent } from "../models/admin-event.ts";
import type { Denial } from "../models/denial.ts";
import type { Role } from "../models/role.ts";
import type { Tenant } from "../models/tenant.ts";

/** What deleting a tenant removed (the answer of `DELETE /admin/tenants/{tenant_id}`). */
export interface TenantRemoval {
  entries: number;
  dead_letters: number;
  roles: number;
  denials: number;
}

/** Messages of the system actor (actors/system.ts), which serialises every system-store write. */
export type SystemProtocol = {
  "tenant.create": { msg: { name: string }; reply: Tenant };
  /** Suspends (`suspended`) or resumes (`active`) a tenant; answers the tenant as it now is. */
  "tenant.status": { msg: { tenantId: string; status: Tenant["status"] }; reply: Tenant };
  /** Erases a suspended tenant (else 409): its vault, roles and denial records. */
  "tenant.delete": { msg: { tenantId: string }; reply: TenantRemoval };
  "role.put": {
    msg: { tenantId: string; role: Omit<Role, "builtin"> };
    reply: { role: Role; replaced: boolean };
  };
  "role.delete": { msg: { tenantId: string; name: string }; reply: { deleted: string } };
  "denial.record": { msg: { denial: Denial }; reply: undefined };
  "admin.record": { msg: { event: AdminEvent }; reply: undefined };
};
