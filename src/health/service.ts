/**
 * The health answers, the service side: the readiness report (`/readyz`), the build and its limits
 * (`/healthz`) and a tenant's health, asked of its actor unless its vault is missing (reported, not
 * silently re-created by starting the actor).
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import type { ReadinessReport } from "../compose/readiness.ts";
import type { Config } from "../config/config.ts";
import type { Tenant } from "../models/tenant.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { TenantDirectory } from "../tenants/directory.ts";

export interface HealthServiceDeps {
  config: Pick<Config, "version">;
  clock: Clock;
  startedAt: number;
  tenants: Pick<TenantDirectory, "count" | "vaultPresent">;
  /** Open-file limit read at start, the bound on open tenant vaults derived from it, and the open count. */
  limits: { openFiles: number; maxOpenTenants: number; openTenants(): number };
  /** `GET /readyz`'s checks, each reported (src/compose/readiness.ts). */
  readiness(): ReadinessReport;
  guard: Pick<Guard, "require">;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
}

export class HealthService {
  constructor(private readonly deps: HealthServiceDeps) {}

  readiness(): ReadinessReport {
    return this.deps.readiness();
  }

  healthz() {
    const { config, startedAt, clock, tenants, limits } = this.deps;
    return {
      status: "ok" as const,
      version: config.version,
      started_at: new Date(startedAt).toISOString(),
      uptime_s: Math.floor((clock.now() - startedAt) / 1000),
      tenants: tenants.count(),
      limits: {
        open_files: limits.openFiles,
        max_open_tenants: limits.maxOpenTenants,
        open_tenants: limits.openTenants(),
      },
    };
  }

  /** A tenant's vault, index, dead letters and connectors (`tenant:read`). */
  async tenantHealth(caller: Caller, tenant: Tenant) {
    this.deps.guard.require(caller.principal, "tenant:read", caller.req);
    const tenantId = tenant.tenant_id;
    const base = { tenant_id: tenantId, status: tenant.status };
    // A missing vault is reported, not silently re-created by starting the actor.
    if (!this.deps.tenants.vaultPresent(tenantId)) {
      return {
        ...base,
        vault: { present: false, entries: 0 },
        index: { vectors: 0, pending: 0, pending_vectors: 0 },
        dead_letters: 0,
        connectors: {},
      };
    }
    return { ...base, ...(await this.deps.tenant(tenantId).ask({ type: "tenant.health" })) };
  }
}
