/**
 * The webhook operations' background upkeep (docs/webhook-operations.md#retention), on the
 * injected clock: at start and then every hour, for each tenant served here whose vault is open,
 * or whose upkeep marker (upkeep-marker.ts) says it is due, it asks the tenant to purge what
 * retention lets go of, and continues any resume that a restart interrupted.
 */
import type { Config } from "../config/config.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { Retention } from "../protocols/webhook-ops-protocol.ts";
import type { ActorKind, ActorRef } from "../runtime/actor-system.ts";
import type { Clock, TimerHandle } from "../runtime/clock.ts";
import { tenantDir } from "../vault/tenant-paths.ts";
import { PAUSABLE_SOURCES, WebhookOperations } from "../webhooks/operations.ts";
import type { IngestPipeline } from "./deliver.ts";
import { upkeepDue } from "./upkeep-marker.ts";

export const UPKEEP_INTERVAL_MS = 3_600_000;

/** Purge rounds per tenant and pass at most (each removes up to 10,000 records). */
const MAX_ROUNDS = 100;

export interface UpkeepDeps {
  clock: Clock;
  retention: Retention;
  /** Tenants this node serves. */
  tenants(): string[];
  /** Whether the tenant's actor (and vault) is open now. */
  isOpen(tenantId: string): boolean;
  vaultDir(tenantId: string): string;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  operations: WebhookOperations;
  log: (line: string) => void;
}

export class WebhookUpkeep {
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly deps: UpkeepDeps) {}

  /** The first pass at once (a resume cut short by a restart goes on), then every interval. */
  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** One pass over the tenants served here; a pass already running is joined. */
  pass(): Promise<void> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      void this.pass().finally(() => this.schedule(UPKEEP_INTERVAL_MS));
    }, ms);
  }

  private async run(): Promise<void> {
    const now = this.deps.clock.now();
    const served = this.deps.tenants();
    // Figures of tenants deleted or moved away are dropped.
    this.deps.operations.figures.keepOnly(new Set(served));
    for (const tenantId of served) {
      if (this.stopped) return;
      const due = upkeepDue(this.deps.vaultDir(tenantId));
      if (!this.deps.isOpen(tenantId) && (due === undefined || due > now)) continue;
      try {
        await this.tend(tenantId, now);
      } catch (error) {
        // One tenant's failure (a full disk, a vault that cannot open now) waits for the next pass.
        this.deps.log(
          `[webhook upkeep ${tenantId}] ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private async tend(tenantId: string, now: number): Promise<void> {
    const tenant = this.deps.tenant(tenantId);
    let resuming: string[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const report = await tenant.ask({ type: "webhooks.purge", now, retention: this.deps.retention });
      this.deps.operations.observed(tenantId, report);
      resuming = report.resuming;
      if (!report.more) break;
    }
    for (const source of resuming) await this.deps.operations.resume(tenantId, source, null);
  }
}

export interface WebhookOperationsParts {
  config: Config;
  clock: Clock;
  log: (line: string) => void;
  ingest: IngestPipeline;
  tenants: ActorKind<TenantProtocol>;
  store: { listTenants(): Array<{ tenant_id: string }> };
  /** Whether this node serves the tenant (cluster mode: only its owner purges and resumes). */
  servedHere: (tenantId: string) => boolean;
}

/** The webhook operations' service and its upkeep, as the composition root wires them. */
export function webhookOperations(parts: WebhookOperationsParts) {
  const { config, clock, log, ingest, tenants, store, servedHere } = parts;
  const tenant = (tenantId: string) => tenants.ref(tenantId);
  const webhooks = new WebhookOperations({ ingest, tenant, sources: PAUSABLE_SOURCES });
  const upkeep = new WebhookUpkeep({
    clock,
    retention: config.webhookRetention,
    tenants: () =>
      store
        .listTenants()
        .map((t) => t.tenant_id)
        .filter(servedHere),
    isOpen: (tenantId) => tenants.isActive(tenantId),
    vaultDir: (tenantId) => tenantDir(config.dataDir, tenantId),
    tenant,
    operations: webhooks,
    log,
  });
  return { webhooks, upkeep };
}
