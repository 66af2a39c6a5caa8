/**
 * Connectors follow their tenants. For each tenant and connector (the mail watch, the CRM stream)
 * the supervisor compares what should run (the tenant is active and the connector's secrets are
 * present) with what runs, and starts, stops or restarts (its credentials changed) it. It is asked
 * at start, when a tenant is created, suspended or resumed, when the secrets are reloaded, and in
 * cluster mode when the tenant's partition starts or stops being served here (a tenant's status
 * then reads as absent on nodes that do not serve it).
 */
import { createHash } from "node:crypto";
import type { Secrets } from "../secrets/secrets.ts";

/** How the supervisor drives one kind of connector. */
export interface ConnectorDriver<S = unknown> {
  name: string;
  /** Secrets without which it does not start. */
  required: readonly string[];
  /** Every secret it reads: a change to any of them restarts it. */
  reads: readonly string[];
  start(tenantId: string): Promise<S>;
  /** Stops its work (streams, timers) and records the stopped state. */
  stop(tenantId: string): Promise<void>;
  status(tenantId: string): Promise<S>;
}

export type Change = "started" | "restarted" | "stopped";

export interface SupervisorDeps {
  secrets: Secrets;
  /** The tenant's status, or undefined when it does not exist (any more). */
  tenantStatus(tenantId: string): "active" | "suspended" | undefined;
  drivers: readonly ConnectorDriver[];
  log: (line: string) => void;
}

export class ConnectorSupervisor {
  /** tenant → connector → fingerprint of the secrets it was started with. */
  private readonly running = new Map<string, Map<string, string>>();
  /** One reconciliation per tenant at a time, in order. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private stopped = false;

  constructor(private readonly deps: SupervisorDeps) {}

  /** Brings one tenant's connectors in line with its status and secrets; answers what changed. */
  reconcile(tenantId: string): Promise<Partial<Record<string, Change>>> {
    const previous = this.queues.get(tenantId) ?? Promise.resolve();
    const next = previous.then(
      () => this.apply(tenantId),
      () => this.apply(tenantId),
    );
    const settled = next.finally(() => {
      if (this.queues.get(tenantId) === settled) this.queues.delete(tenantId);
    });
    this.queues.set(tenantId, settled);
    return next;
  }

  /** The statuses of the connectors running for a tenant, by name. */
  async statuses(tenantId: string): Promise<Record<string, unknown>> {
    const names = this.running.get(tenantId);
    const out: Record<string, unknown> = {};
    for (const driver of this.deps.drivers)
      if (names?.has(driver.name)) out[driver.name] = await driver.status(tenantId);
    return out;
  }

  isRunning(tenantId: string, name: string): boolean {
    return this.running.get(tenantId)?.has(name) ?? false;
  }

  /** Stops reconciling (the runtime is stopping; the connectors themselves are stopped by it). */
  halt(): void {
    this.stopped = true;
  }

  private async apply(tenantId: string): Promise<Partial<Record<string, Change>>> {
    const changes: Partial<Record<string, Change>> = {};
    if (this.stopped) return changes;
    const active = this.deps.tenantStatus(tenantId) === "active";
    for (const driver of this.deps.drivers) {
      const change = await this.applyOne(tenantId, driver, active);
      if (change) changes[driver.name] = change;
    }
    return changes;
  }

  private async applyOne(
    tenantId: string,
    driver: ConnectorDriver,
    active: boolean,
  ): Promise<Change | undefined> {
    const wanted = active && this.deps.secrets.has(driver.required, tenantId);
    const running = this.running.get(tenantId)?.get(driver.name);
    const fingerprint = wanted ? this.fingerprint(driver, tenantId) : undefined;
    try {
      if (!wanted && running !== undefined) {
        // Forgotten even when its stop failed: a connector halts before it records its stopped
        // state, which a cluster node that just lost the tenant's partition may not write.
        try {
          await driver.stop(tenantId);
        } finally {
          this.forget(tenantId, driver.name);
        }
        return "stopped";
      }
      if (!wanted || running === fingerprint) return undefined;
      if (running !== undefined) await driver.stop(tenantId);
      await driver.start(tenantId);
      this.remember(tenantId, driver.name, fingerprint!);
      return running === undefined ? "started" : "restarted";
    } catch (error) {
      this.deps.log(
        `[connectors ${tenantId}] ${driver.name}: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  }

  /** A digest of the connector's secrets: it tells a change apart without keeping the values. */
  private fingerprint(driver: ConnectorDriver, tenantId: string): string {
    const hash = createHash("sha256");
    for (const base of driver.reads)
      hash.update(`${base}\u0000${this.deps.secrets.get(base, tenantId) ?? ""}\u0000`);
    return hash.digest("base64url");
  }

  private remember(tenantId: string, name: string, fingerprint: string): void {
    let names = this.running.get(tenantId);
    if (!names) {
      names = new Map();
      this.running.set(tenantId, names);
    }
    names.set(name, fingerprint);
  }

  private forget(tenantId: string, name: string): void {
    const names = this.running.get(tenantId);
    names?.delete(name);
    if (names?.size === 0) this.running.delete(tenantId);
  }
}
