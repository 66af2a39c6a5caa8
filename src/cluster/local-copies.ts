/**
 * What a node keeps on disk of a partition it does not serve: nothing (docs/cluster.md, "Where a
 * tenant's data lives"). Its vaults of a partition are the partition's materialised state only
 * while it serves it; no claim reads them (a takeover drops them first and rebuilds the partition
 * from the snapshot and the log, restore.ts), so once the partition stops being served here
 * (released at a rebalance, a failed renewal, a fenced append, a restore that failed or was
 * overtaken) they would only keep tenant data on a node that no longer owns it: entries erased
 * since, a tenant deleted since, and a disk that grows with every move. They are closed and
 * removed then, once what runs on its own for those tenants here (connectors, workers) stopped;
 * at start, for every partition found on disk (a node killed before it removed them); and after a
 * clean stop.
 *
 * Removals and restores of one partition run one after the other (`serially`): a re-claim that
 * starts while a removal runs restores after it, and a removal, queued when the partition stops
 * being served, always runs before the restore of a later claim, which is what makes the partition
 * served again. Requests that reach the node meanwhile are refused by the tenant actor, which does
 * not open a vault of a partition not served here (the placement port's `vaultRefusal`,
 * cluster-ports.ts): 503; a read that ran while the partition left is asked again of the next
 * owner (router.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ULID_RE } from "../models/common.ts";
import type { Clock, TimerHandle } from "../runtime/clock.ts";
import { removeTenantDir } from "../vault/tenant-paths.ts";
import { partitionOf } from "./partition.ts";

export interface DropDeps {
  dataDir: string;
  /** Closes the tenant's actor (and its vault) on this node. */
  passivateTenant(tenantId: string): Promise<void>;
}

export interface LocalCopiesDeps extends DropDeps {
  /** Stops what runs on its own here for the partition's tenants (connectors, outbound workers). */
  stopRunning(partition: number): Promise<void>;
  /** Whether the partition is served here now: its copies are then the served state, kept. */
  serves(partition: number): boolean;
  clock: Clock;
  log(line: string): void;
}

/**
 * How long a removal waits for the connectors and workers to stop before it closes the vaults
 * anyway (their writes are refused by then, and a tenant actor closes after its mailbox): a re-claim
 * of the partition here waits for the removal, so a stop that hangs must not hold it for ever.
 */
export const STOP_RUNNING_WAIT_MS = 10_000;

/** The ids of the tenants that have a vault directory here, by partition. */
export function tenantsOnDisk(dataDir: string): Map<number, string[]> {
  const byPartition = new Map<number, string[]>();
  let ids: string[];
  try {
    ids = readdirSync(join(dataDir, "tenants"));
  } catch {
    return byPartition;
  }
  for (const tenantId of ids) {
    if (!ULID_RE.test(tenantId)) continue;
    const partition = partitionOf(tenantId);
    byPartition.set(partition, [...(byPartition.get(partition) ?? []), tenantId]);
  }
  return byPartition;
}

/** Closes and removes whatever this node holds of the partition's tenants; answers their ids. */
export async function dropLocalTenants(deps: DropDeps, partition: number): Promise<string[]> {
  const tenantIds = tenantsOnDisk(deps.dataDir).get(partition) ?? [];
  for (const tenantId of tenantIds) {
    await deps.passivateTenant(tenantId);
    removeTenantDir(deps.dataDir, tenantId);
  }
  return tenantIds;
}

export class LocalCopies {
  /** Per partition, the last step queued (settled, never rejected). */
  private readonly chains = new Map<number, Promise<void>>();

  constructor(private readonly deps: LocalCopiesDeps) {}

  /** Runs `step` once every step queued before it for the partition has settled. */
  serially<T>(partition: number, step: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(partition) ?? Promise.resolve()).then(step);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(partition, settled);
    void settled.then(() => {
      if (this.chains.get(partition) === settled) this.chains.delete(partition);
    });
    return next;
  }

  /** The partition is no longer served here: its tenants' copies go once what runs for them stopped. */
  remove(partition: number): Promise<void> {
    return this.serially(partition, async () => {
      try {
        await this.stopRunning(partition);
        await this.drop(partition);
      } catch (error) {
        // Left for the next claim of the partition here (its restore drops them) or the next start.
        this.deps.log(`[cluster] partition ${partition}: removing local copies failed: ${error}`);
      }
    });
  }

  /**
   * At start, before anything is claimed: every partition this node holds copies of (it was killed
   * before removing them). None is read again: a partition claimed now is restored after this.
   */
  removeAll(): Promise<void> {
    return this.forEachOnDisk((partition) => this.remove(partition));
  }

  /** After a clean stop (nothing runs or is served any more, every vault is closed): every copy. */
  removeAllStopped(): Promise<void> {
    return this.forEachOnDisk((partition) => this.serially(partition, () => this.drop(partition)));
  }

  private async stopRunning(partition: number): Promise<void> {
    let timer: TimerHandle | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = this.deps.clock.setTimeout(() => {
        this.deps.log(
          `[cluster] partition ${partition}: connectors still stopping, local copies removed anyway`,
        );
        resolve();
      }, STOP_RUNNING_WAIT_MS);
    });
    try {
      await Promise.race([this.deps.stopRunning(partition), waited]);
    } finally {
      timer?.cancel();
    }
  }

  private async drop(partition: number): Promise<void> {
    // Never the case (a claim's restore is queued after a removal), but a served state stays.
    if (this.deps.serves(partition)) return;
    const started = performance.now();
    const removed = await dropLocalTenants(this.deps, partition);
    const ms = Math.round(performance.now() - started);
    if (removed.length > 0)
      this.deps.log(
        `[cluster] partition ${partition}: not served here, local copies of ${removed.length} tenants removed in ${ms} ms`,
      );
  }

  private async forEachOnDisk(step: (partition: number) => Promise<void>): Promise<void> {
    await Promise.all([...tenantsOnDisk(this.deps.dataDir).keys()].map(step));
  }
}
