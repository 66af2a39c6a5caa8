/**
 * Takeover of a partition's data (docs/cluster.md, "Takeover"): after its claim record, the new
 * owner drops whatever it had locally of the partition's tenants and replays the partition's
 * changelog up to its own claim (nothing acknowledged can follow it) into fresh vaults. Records of
 * a writer whose epoch is older than a claim seen before them are skipped (fencing's second line).
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

export interface RestoreDeps {
  js: JetStreamClient;
  dataDir: string;
  /** Closes the tenant's actor (and its vault) on this node. */
  passivateTenant(tenantId: string): Promise<void>;
}

export interface RestoreReport {
  tenants: number;
  applied: number;
  skipped: number;
}

export async function restorePartition(
  deps: RestoreDeps,
  partition: number,
  claimSeq: number,
): Promise<RestoreReport> {
  await dropLocalTenants(deps, partition);
  const vaults = new Map<string, TenantVault>();
  const report: RestoreReport = { tenants: 0, applied: 0, skipped: 0 };
  try {
    const consumer = await deps.js.consumers.get(LOG_STREAM, {
      filter_subjects: logSubject(partition),
      deliver_policy: DeliverPolicy.All,
    });
    const messages = await consumer.consume();
    let newestClaim = 0;
    for await (const msg of messages) {
      if (msg.seq >= claimSeq) break;
      const record = msg.json<LogRecord & { tenant_id?: string; set?: unknown }>();
      if (record.type === "claim") newestClaim = msg.seq;
      else if (record.type === "write" && record.tenant_id) {
        if (record.epoch < newestClaim) {
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
  report.tenants = vaults.size;
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
