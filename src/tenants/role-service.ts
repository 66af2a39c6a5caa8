/**
 * The tenant's role library, the service side of `/admin/roles`: read from the directory, changed
 * through the system actor, each change recorded in the admin audit log before the answer.
 */
import type { Role } from "../models/role.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { TenantDirectory } from "./directory.ts";
import type { AdminAuditSink } from "./lifecycle.ts";

export interface RoleServiceDeps {
  tenants: Pick<TenantDirectory, "roles">;
  system: ActorRef<SystemProtocol>;
  audit: AdminAuditSink;
}

export class RoleService {
  constructor(private readonly deps: RoleServiceDeps) {}

  list(tenantId: string): Role[] {
    return this.deps.tenants.roles(tenantId);
  }

  /** Creates or replaces the role; `replaced` says which. */
  async put(
    tenantId: string,
    body: { name: string; permissions: string[]; description?: string },
    by: string,
  ) {
    const role = { name: body.name, permissions: body.permissions, description: body.description ?? "" };
    const result = await this.deps.system.ask({ type: "role.put", tenantId, role });
    await this.deps.audit({
      action: result.replaced ? "role.replaced" : "role.created",
      sub: by,
      tenant_id: tenantId,
      target: role.name,
      details: { permissions: result.role.permissions },
    });
    return result;
  }

  /** Deletes the role (NotFound when unknown; the built-in tenant_admin is refused). */
  async delete(tenantId: string, name: string, by: string): Promise<{ deleted: string }> {
    const deleted = await this.deps.system.ask({ type: "role.delete", tenantId, name });
    await this.deps.audit({
      action: "role.deleted",
      sub: by,
      tenant_id: tenantId,
      target: name,
      details: {},
    });
    return deleted;
  }
}
