/**
 * Which tenants run a delivery worker (actors/tenant/outbound/delivery-worker.ts): those that are active and hold active
 * subscriptions. Asked at start, after each subscription change, and after each tenant lifecycle
 * step (suspended tenants' events wait in their change log until they are resumed).
 */
import type { AdminEvent } from "../models/admin-event.ts";
import type { OutboundProtocol } from "../protocols/outbound-protocol.ts";
import type { ActorKind } from "../runtime/actor-system.ts";
import { outboundMarked } from "./marker.ts";

type AuditSink = (event: Omit<AdminEvent, "at">) => Promise<void>;

export interface OutboundEventsDeps {
  workers: ActorKind<OutboundProtocol>;
  /** The tenant's status, or undefined when it does not exist (any more). */
  tenantStatus(tenantId: string): "active" | "suspended" | undefined;
  /** The tenant's vault directory (where the marker of active subscriptions lives). */
  vaultDir(tenantId: string): string;
  log: (line: string) => void;
}

/** Lifecycle steps after which a tenant's worker is started or stopped. */
const LIFECYCLE_ACTIONS = new Set(["tenant.suspended", "tenant.resumed", "tenant.deleted"]);

export class OutboundEvents {
  /** One reconciliation per tenant at a time, in order. */
  private readonly queues = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(private readonly deps: OutboundEventsDeps) {}

  /** Starts, refreshes or stops the tenant's worker to match its status and subscriptions. */
  reconcile(tenantId: string): Promise<void> {
    const previous = this.queues.get(tenantId) ?? Promise.resolve();
    const next = previous.then(() => this.apply(tenantId));
    this.queues.set(tenantId, next);
    void next.finally(() => {
      if (this.queues.get(tenantId) === next) this.queues.delete(tenantId);
    });
    return next;
  }

  /** At start: a worker for each active tenant whose vault holds active subscriptions. */
  startAll(tenantIds: Iterable<string>): void {
    for (const tenantId of tenantIds) if (this.wanted(tenantId)) void this.reconcile(tenantId);
  }

  /** Stops the tenant's worker (its tenant is being erased). */
  stop(tenantId: string): Promise<void> {
    return this.deps.workers.passivate(tenantId);
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await this.deps.workers.stopAll();
  }

  isRunning(tenantId: string): boolean {
    return this.deps.workers.isActive(tenantId);
  }

  /** The audit sink of the tenant lifecycle, followed by this tenant's reconciliation. */
  following(audit: AuditSink): AuditSink {
    return async (event) => {
      await audit(event);
      if (event.tenant_id && LIFECYCLE_ACTIONS.has(event.action)) await this.reconcile(event.tenant_id);
    };
  }

  private wanted(tenantId: string): boolean {
    if (this.stopping || this.deps.tenantStatus(tenantId) !== "active") return false;
    try {
      return outboundMarked(this.deps.vaultDir(tenantId));
    } catch {
      return false;
    }
  }

  private async apply(tenantId: string): Promise<void> {
    const { workers, log } = this.deps;
    try {
      if (!this.wanted(tenantId)) {
        if (workers.isActive(tenantId)) await workers.passivate(tenantId);
        return;
      }
      const { active } = await workers.ask(tenantId, { type: "outbound.refresh" });
      if (active === 0) await workers.passivate(tenantId);
    } catch (error) {
      log(
        `[outbound ${tenantId}] cannot start deliveries: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
