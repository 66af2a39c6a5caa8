/**
 * Takeover of a partition's data (docs/cluster.md, "Takeover"): after its claim record, the new
 * owner drops whatever it had locally of the partition's tenants, loads the partition's latest
 * snapshot, and replays the changelog from the snapshot's sequence up to its own claim (nothing
 * acknowledged can follow it). Records of a writer whose epoch is older than a claim seen before
 * them are skipped (fencing's second line); an `import` record replaces its tenant's vault with the
 * imported one (import-log.ts); an erasure's vault is compacted after the replay (LMDB keeps freed
 * pages as they were). When it replayed anything, the result is captured as the next snapshot
 * before the partition is served, unless the partition owes a compaction (it met an erasure or a
 * deleted tenant, or records left below the snapshot): the owner then compacts it once it serves
 * it (compaction.ts), rebuilding the same way into a scratch directory.
 */
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { compactIfPending, markForCompaction } from "../vault/compact.ts";
import { removeTenantDir, tenantDir } from "../vault/tenant-paths.ts";
import { TenantVault } from "../vault/tenant-vault.ts";
import { decodeWriteSet } from "./changelog.ts";
import { type LogRecord, Reassembly, unbatched } from "./fence.ts";
import type { ImportObjects } from "./import-objects.ts";
import { dropLocalTenants } from "./local-copies.ts";
import { LOG_STREAM, logSubject } from "./names.ts";
import { changesSubscriptions, syncOutboundMarkers } from "./outbound-markers.ts";
import { firstSeqOnSubject } from "./secure-delete.ts";
import { type Manifest, NO_SNAPSHOT, type Snapshots } from "./snapshots.ts";

export interface RestoreDeps {
  js: JetStreamClient;
  dataDir: string;
  /** Closes the tenant's actor (and its vault) on this node. */
  passivateTenant(tenantId: string): Promise<void>;
  snapshots?: Snapshots;
  /** Where `import` records' vaults are (import-log.ts). */
  imports?: ImportObjects;
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

/** A takeover's restore: and whether the partition owes a compaction (compaction.ts). */
export interface Restored extends RestoreReport {
  /**
   * The log holds an erasure or a deleted tenant's records, or records below the snapshot (a
   * compaction cut short, or a takeover's snapshot): the new owner compacts the partition once it
   * serves it (compaction.ts), instead of capturing its restored state as a snapshot.
   */
  compactionOwed: boolean;
}

/** A partition's state rebuilt in a directory: the snapshot, then the log up to `upTo`. */
export interface Replayed extends RestoreReport {
  /** The tenants whose vaults the directory now holds. */
  kept: string[];
  /** The newest claim at or before `upTo`: the epoch a snapshot of this state records. */
  epoch: number;
  /** A tenant of the snapshot was deleted since: the state differs from the snapshot's. */
  droppedFromSnapshot: boolean;
  /** Tenants whose entries an applied write set erased (their vaults are compacted). */
  erased: string[];
  /** Tenants met (records or snapshot files) that no longer exist: left out. */
  deleted: string[];
}

/** How often a takeover re-reads the snapshots when the one it read was overtaken by a purge. */
const SNAPSHOT_READS = 3;

export async function restorePartition(
  deps: RestoreDeps,
  partition: number,
  claimSeq: number,
): Promise<Restored> {
  // Whatever this node holds of the partition may be stale or diverged: the log is the truth.
  await dropLocalTenants(deps, partition);
  const replayed = await replayPartition(deps, partition, deps.dataDir, claimSeq);
  const compactionOwed = await owesCompaction(deps, partition, replayed);
  // An owed compaction makes the next snapshot itself and removes the log below it.
  if (deps.snapshots && !compactionOwed && (replayed.applied > 0 || replayed.droppedFromSnapshot)) {
    const manifest = { seq: claimSeq, epoch: replayed.epoch, tenants: replayed.kept };
    // Copied now (closed, exactly the log up to the claim); uploaded while the partition is served.
    void deps.snapshots
      .capture(partition, manifest, deps.dataDir)
      .catch((error) => deps.log?.(`[cluster] partition ${partition}: snapshot failed: ${error}`));
  }
  const { tenants, applied, skipped, snapshot } = replayed;
  return { tenants, applied, skipped, snapshot, compactionOwed };
}

async function owesCompaction(deps: RestoreDeps, partition: number, replayed: Replayed): Promise<boolean> {
  if (replayed.erased.length > 0 || replayed.deleted.length > 0) return true;
  if (replayed.snapshot === 0) return false;
  const first = await firstSeqOnSubject(deps.js, partition);
  return first !== undefined && first < replayed.snapshot;
}

/**
 * Rebuilds the partition in `dir` (which holds none of its tenants): the latest snapshot, then
 * every write record after it up to and including sequence `upTo`, which must be on the subject.
 * Used by a takeover (into the data directory, up to its claim) and by periodic snapshots (into
 * a scratch directory, up to the owner's last append).
 */
export async function replayPartition(
  deps: RestoreDeps,
  partition: number,
  dir: string,
  upTo: number,
): Promise<Replayed> {
  const snapshot = await readSnapshot(deps, partition, dir);
  const vaults = new Map<string, TenantVault>();
  const known = new Map<string, boolean>();
  const exists = async (tenantId: string) => {
    if (!known.has(tenantId)) known.set(tenantId, (await deps.tenantExists?.(tenantId)) ?? true);
    return known.get(tenantId)!;
  };
  const imported = new Set<string>();
  const erased = new Set<string>();
  /** Tenants whose outbound marker the replay may have changed (outbound-markers.ts). */
  const subscribing = new Set<string>();
  const report = { tenants: 0, applied: 0, skipped: 0, snapshot: snapshot.seq };
  let newestClaim = snapshot.epoch;
  try {
    if (upTo > snapshot.seq) {
      const consumer = await deps.js.consumers.get(LOG_STREAM, {
        filter_subjects: logSubject(partition),
        ...(snapshot.seq > 0
          ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: snapshot.seq + 1 }
          : { deliver_policy: DeliverPolicy.All }),
      });
      const messages = await consumer.consume();
      const reassembly = new Reassembly();
      for await (const msg of messages) {
        if (msg.seq > upTo) break;
        const whole = reassembly.add(msg.json()) as
          | (LogRecord & { tenant_id?: string; set?: unknown })
          | undefined;
        // A part of a large record is applied with its last part; a batch's records one by one.
        for (const record of whole ? unbatched(whole) : []) {
          if (record.type === "claim") newestClaim = msg.seq;
          else if ((record.type === "write" || record.type === "import") && record.tenant_id) {
            if (record.epoch < newestClaim || !(await exists(record.tenant_id))) report.skipped++;
            else if (record.type === "import") {
              // The imported vault replaces the tenant's, whatever this replay wrote of it before.
              await vaults.get(record.tenant_id)?.close();
              vaults.delete(record.tenant_id);
              if (!deps.imports) throw new Error("an import record, and no import store to read it from");
              await deps.imports.restore(String(record.object), dir, record.tenant_id);
              imported.add(record.tenant_id);
              subscribing.add(record.tenant_id);
              report.applied++;
            } else {
              let vault = vaults.get(record.tenant_id);
              if (!vault) {
                vault = new TenantVault(tenantDir(dir, record.tenant_id));
                vaults.set(record.tenant_id, vault);
              }
              const set = decodeWriteSet(record.set);
              if (set.erase) erased.add(record.tenant_id);
              if (changesSubscriptions(set)) subscribing.add(record.tenant_id);
              // A replay's vault has no write-through: a replayed set is not appended again.
              await vault.write(set);
              report.applied++;
            }
          }
        }
        if (msg.seq >= upTo) break;
      }
      await messages.close();
    }
    await syncOutboundMarkers(dir, subscribing, (tenantId) => vaults.get(tenantId));
  } finally {
    await Promise.all([...vaults.values()].map((v) => v.close()));
  }
  // A tenant deleted since the snapshot: its files go (an erased tenant must not come back).
  const kept: string[] = [];
  for (const tenantId of new Set([...snapshot.tenants, ...vaults.keys(), ...imported])) {
    if (await exists(tenantId)) kept.push(tenantId);
    else removeTenantDir(dir, tenantId);
  }
  report.tenants = kept.length;
  const droppedFromSnapshot = snapshot.tenants.some((t) => !kept.includes(t));
  // LMDB keeps freed pages as they were: erased bytes stay in the file until it is compacted.
  const erasedKept = kept.filter((t) => erased.has(t));
  for (const tenantId of erasedKept) {
    markForCompaction(tenantDir(dir, tenantId));
    await compactIfPending(tenantDir(dir, tenantId));
  }
  const deleted = [...known].filter(([, exists]) => !exists).map(([tenantId]) => tenantId);
  return { ...report, kept, epoch: newestClaim, droppedFromSnapshot, erased: erasedKept, deleted };
}

/**
 * The latest snapshot's files, written into `dir`. The log before a snapshot is purged once the
 * snapshot is complete, so a snapshot is usable only while the log still holds its last record
 * (everything after it is then there too): one whose record is gone was overtaken by a newer
 * snapshot meanwhile, which a re-read finds.
 */
async function readSnapshot(deps: RestoreDeps, partition: number, dir: string): Promise<Manifest> {
  if (!deps.snapshots) return NO_SNAPSHOT;
  const jsm = await deps.js.jetstreamManager();
  for (let read = 0; read < SNAPSHOT_READS; read++) {
    const manifest = await deps.snapshots.latest(partition);
    if (manifest.seq === 0) return manifest;
    const record = await jsm.streams.getMessage(LOG_STREAM, { seq: manifest.seq }).catch(() => null);
    if (record?.subject !== logSubject(partition)) continue;
    await deps.snapshots.loadFiles(partition, manifest, dir);
    return manifest;
  }
  throw new Error(`partition ${partition}: the log no longer holds the latest snapshot's sequence`);
}
