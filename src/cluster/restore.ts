/**
 * Takeover of a partition's data (docs/cluster.md, "Takeover"): after its claim record, the new
 * owner drops whatever it had locally of the partition's tenants, loads the partition's latest
 * snapshot, and replays the changelog from the snapshot's sequence up to its own claim (nothing
 * acknowledged can follow it). Records of a writer whose epoch is older than a claim seen before
 * them are skipped (fencing's second line). When it replayed anything, the result is captured as
 * the next snapshot before the partition is served.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { ULID_RE } from "../models/common.ts";
import { removeTenantDir, tenantDir } from "../vault/tenant-paths.ts";
import { TenantVault } from "../vault/tenant-vault.ts";
import { decodeWriteSet, localWrite } from "./changelog.ts";
import type { LogRecord } from "./fence.ts";
import { LOG_STREAM, logSubject } from "./names.ts";
import { partitionOf } from "./partition.ts";
import type { Snapshots } from "./snapshots.ts";

export interface RestoreDeps {
  js: JetStreamClient;
  dataDir: string;
  /** Closes the tenant's actor (and its vault) on this node. */
  passivateTenant(tenantId: string): Promise<void>;
  snapshots?: Snapshots;
  /** False for a tenant deleted since its records were written: they are not replayed. */
  tenantExists?: (tenantId: string) => Promise<boolean>;
  log?: (line: string) => void;
}

export interface RestoreReport {
  tenants: number;
  applied: number;
  skipped: number;
  /** The sequence of the snapshot the replay started from (0: none). */
  snapshot: number;
}

export async function restorePartition(
  deps: RestoreDeps,
  partition: number,
  claimSeq: number,
): Promise<RestoreReport> {
  await dropLocalTenants(deps, partition);
  const snapshot = (await deps.snapshots?.load(partition, deps.dataDir)) ?? { seq: 0, tenants: [] };
  const vaults = new Map<string, TenantVault>();
  const known = new Map<string, boolean>();
  const exists = async (tenantId: string) => {
    if (!known.has(tenantId)) known.set(tenantId, (await deps.tenantExists?.(tenantId)) ?? true);
    return known.get(tenantId)!;
  };
  const report: RestoreReport = { tenants: 0, applied: 0, skipped: 0, snapshot: snapshot.seq };
  try {
    const consumer = await deps.js.consumers.get(LOG_STREAM, {
      filter_subjects: logSubject(partition),
      ...(snapshot.seq > 0
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: snapshot.seq }
        : { deliver_policy: DeliverPolicy.All }),
    });
    const messages = await consumer.consume();
    // The snapshot was taken at a claim: the newest claim before anything replayed after it.
    let newestClaim = snapshot.seq;
    for await (const msg of messages) {
      if (msg.seq >= claimSeq) break;
      if (msg.seq <= snapshot.seq) continue;
      const record = msg.json<LogRecord & { tenant_id?: string; set?: unknown }>();
      if (record.type === "claim") newestClaim = msg.seq;
      else if (record.type === "write" && record.tenant_id) {
        if (record.epoch < newestClaim || !(await exists(record.tenant_id))) {
          report.skipped++;
          continue;
        }
        let vault = vaults.get(record.tenant_id);
        if (!vault) {
          vault = new TenantVault(tenantDir(deps.dataDir, record.tenant_id));
          vaults.set(record.tenant_id, vault);
        }
        await localWrite.call(vault, decodeWriteSet(record.set));
        report.applied++;
      }
    }
    await messages.close();
  } finally {
    await Promise.all([...vaults.values()].map((v) => v.close()));
  }
  // A tenant deleted since the snapshot: its files go (an erased tenant must not come back).
  const kept: string[] = [];
  for (const tenantId of new Set([...snapshot.tenants, ...vaults.keys()])) {
    if (await exists(tenantId)) kept.push(tenantId);
    else removeTenantDir(deps.dataDir, tenantId);
  }
  report.tenants = kept.length;
  if (deps.snapshots && (report.applied > 0 || kept.length < snapshot.tenants.length)) {
    const tenants = kept;
    // Copied now (closed, exactly the log up to the claim); uploaded while the partition is served.
    void deps.snapshots
      .capture(partition, claimSeq, deps.dataDir, tenants)
      .catch((error) => deps.log?.(`[cluster] partition ${partition}: snapshot failed: ${error}`));
  }
  return report;
}

/** Whatever this node holds of the partition may be stale or diverged: the log is the truth. */
async function dropLocalTenants(deps: RestoreDeps, partition: number): Promise<void> {
  let ids: string[];
  try {
    ids = readdirSync(join(deps.dataDir, "tenants"));
  } catch {
    return;
  }
  for (const tenantId of ids) {
    if (!ULID_RE.test(tenantId) || partitionOf(tenantId) !== partition) continue;
    await deps.passivateTenant(tenantId);
    removeTenantDir(deps.dataDir, tenantId);
  }
}
