/**
 * Erasing what a tenant holds: some of its entries (`POST /admin/tenants/{id}/erase`), or the
 * whole tenant (its deletion). Both stop what could touch the vault first and finish with the
 * erasure port's follow-ups (src/ports/runtime-ports.ts; cluster mode compacts or drops the partition's copy).
 */
import type { ConnectorSupervisor } from "../connectors/supervisor.ts";
import { NotFound } from "../errors/domain-errors.ts";
import type { EraseReport, EraseRequest } from "../models/erase.ts";
import type { ErasureFollowUps } from "../ports/runtime-ports.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorKind } from "../runtime/actor-system.ts";
import { compactionPending } from "../vault/compact.ts";
import { removeTenantDir, tenantDir } from "../vault/tenant-paths.ts";

/**
 * The tenants being erased: their vault must not be opened again meanwhile. Made before the tenant
 * actors, whose start asks it (`refusal`), and handed to the erasures that fill it.
 */
export class ErasingTenants {
  private readonly erasing = new Set<string>();

  /** Why the tenant's vault must not open now, if it is being erased. */
  refusal(tenantId: string): Error | undefined {
    return this.erasing.has(tenantId) ? new NotFound("this tenant is being deleted") : undefined;
  }

  /** Runs `erase` with the tenant's vault refused until it is done. */
  async during<T>(tenantId: string, erase: () => Promise<T>): Promise<T> {
    this.erasing.add(tenantId);
    try {
      return await erase();
    } finally {
      this.erasing.delete(tenantId);
    }
  }
}

export interface ErasuresDeps {
  dataDir: string;
  erasing: ErasingTenants;
  tenants: ActorKind<TenantProtocol>;
  connectors: ConnectorSupervisor;
  /** Closes the tenant's other actors (connectors, bridge, outbound worker): they hold it open. */
  stopTenantActors(tenantId: string): Promise<void>;
  followUps: ErasureFollowUps;
}

export class Erasures {
  constructor(private readonly deps: ErasuresDeps) {}

  /**
   * Erasure, then a restart of the tenant actor (it compacts the vault before it opens it again),
   * then the erasure port's follow-ups.
   */
  async eraseEntries(tenantId: string, request: EraseRequest, by: string): Promise<EraseReport> {
    const { tenants } = this.deps;
    const report = await tenants.ask(tenantId, { type: "memory.erase", request, by });
    if (compactionPending(tenantDir(this.deps.dataDir, tenantId))) {
      await tenants.passivate(tenantId);
      await tenants.ask(tenantId, { type: "tenant.init" });
    }
    await this.deps.followUps.afterErase(tenantId, report);
    return report;
  }

  /**
   * A deleted tenant's data goes: its connectors stop, every actor holding its vault closes, and
   * its directory is removed; answers what the vault held.
   */
  async eraseTenant(tenantId: string): Promise<{ entries: number; dead_letters: number }> {
    const { tenants } = this.deps;
    await this.deps.connectors.reconcile(tenantId);
    const health = await tenants.ask(tenantId, { type: "tenant.health" });
    await this.deps.erasing.during(tenantId, async () => {
      await this.deps.stopTenantActors(tenantId);
      await tenants.passivate(tenantId);
      removeTenantDir(this.deps.dataDir, tenantId);
    });
    return { entries: health.vault.entries, dead_letters: health.dead_letters };
  }

  /** Removes what a tenant that could not be recorded left (its actor may hold the new vault open). */
  async discardTenant(tenantId: string): Promise<void> {
    await this.deps.tenants.passivate(tenantId);
    removeTenantDir(this.deps.dataDir, tenantId);
  }
}
