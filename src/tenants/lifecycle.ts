/**
 * A tenant's life: created, suspended, resumed, deleted. Each step changes the system store (through
 * the system actor), brings the tenant's connectors in line (they start when its secrets exist,
 * stop while it is suspended), and is recorded in the admin audit log before it is answered.
 */
import type { ConnectorSupervisor } from "../connectors/supervisor.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import type { Tenant } from "../models/tenant.ts";
import type { ErasureFollowUps } from "../ports/runtime-ports.ts";
import type { SystemProtocol, TenantRemoval } from "../protocols/system-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";

/** Records an admin action (committed before it resolves). */
export type AdminAuditSink = (event: Omit<AdminEvent, "at">) => Promise<void>;

export interface LifecycleDeps {
  system: ActorRef<SystemProtocol>;
  connectors: ConnectorSupervisor;
  audit: AdminAuditSink;
  /** What follows a deletion before it is answered (src/ports/runtime-ports.ts; cluster mode: the compaction). */
  erasure: Pick<ErasureFollowUps, "afterDelete">;
}

export class TenantLifecycle {
  constructor(private readonly deps: LifecycleDeps) {}

  async create(name: string, by: string): Promise<Tenant> {
    const tenant = await this.deps.system.ask({ type: "tenant.create", name });
    await this.deps.audit({
      action: "tenant.created",
      sub: by,
      tenant_id: tenant.tenant_id,
      target: null,
      details: { name: tenant.name },
    });
    // Its secrets may already be in the environment or the secrets file: its connectors start now.
    await this.deps.connectors.reconcile(tenant.tenant_id);
    return tenant;
  }

  async setStatus(tenantId: string, status: Tenant["status"], by: string): Promise<Tenant> {
    const tenant = await this.deps.system.ask({ type: "tenant.status", tenantId, status });
    const changes = await this.deps.connectors.reconcile(tenantId);
    await this.deps.audit({
      action: status === "suspended" ? "tenant.suspended" : "tenant.resumed",
      sub: by,
      tenant_id: tenantId,
      target: null,
      details: { connectors: changes },
    });
    return tenant;
  }

  async delete(tenantId: string, by: string): Promise<TenantRemoval> {
    const removed = await this.deps.system.ask({ type: "tenant.delete", tenantId });
    await this.deps.audit({
      action: "tenant.deleted",
      sub: by,
      tenant_id: tenantId,
      target: null,
      details: { removed },
    });
    await this.deps.erasure.afterDelete(tenantId);
    return removed;
  }
}
