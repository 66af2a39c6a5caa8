/**
 * Compacting a partition now (docs/cluster.md, "Snapshots" and "Erasure in cluster mode"): the one
 * procedure behind the periodic snapshots, the erasure of entries, a tenant's deletion and the
 * compaction a takeover owes (periodic-snapshots.ts schedules it). Run by the partition's owner:
 *
 * 1. a fenced `compact` record: it lands only while this node owns the partition, and it is the
 *    end `E` of what the compaction covers. It holds no tenant data, so what stays on the subject
 *    after the purge (the record at `E` and everything after it) holds none of the records below;
 * 2. the partition rebuilt in a scratch directory: the latest snapshot, then the log up to `E`
 *    (erased entries removed and their vaults compacted, deleted tenants left out: restore.ts);
 *    the other tenants of the partition keep writing meanwhile, after `E`;
 * 3. the rebuilt files uploaded as the snapshot at `E`; older snapshots' files overwritten and
 *    deleted (snapshots.ts);
 * 4. a fenced `snapshot` record: a fenced-out owner stops here, and the next owner, whose replay
 *    meets the same erasures and deletions, compacts again (restore.ts);
 * 5. every message of the subject below `E` overwritten (secure-delete.ts), then the purge below
 *    `E` (what an interrupted pass left).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JetStreamManager } from "@nats-io/jetstream";
import { LOG_STREAM, logSubject } from "./names.ts";
import type { ClusterNode } from "./node.ts";
import { type RestoreDeps, replayPartition } from "./restore.ts";
import { overwriteLogBelow } from "./secure-delete.ts";
import type { Snapshots } from "./snapshots.ts";

export interface CompactionDeps {
  node: ClusterNode;
  jsm: JetStreamManager;
  snapshots: () => Promise<Snapshots>;
  /** What a replay needs, but the directory (a scratch one here). */
  restore: Omit<RestoreDeps, "dataDir" | "snapshots">;
}

export interface Compacted {
  /** The snapshot's sequence: the log below it is gone. */
  seq: number;
  epoch: number;
  /** Write records replayed since the previous snapshot, and the tenants the snapshot holds. */
  applied: number;
  tenants: number;
  /** Tenants with entries erased, and tenants deleted, since the previous snapshot. */
  erased: number;
  deleted: number;
  /** Log messages overwritten, and how long that took (ms). */
  overwritten: number;
  overwriteMs: number;
}

/** Compacts the partition up to a record appended now. */
export async function compactPartition(deps: CompactionDeps, partition: number): Promise<Compacted> {
  const snapshots = await deps.snapshots();
  const end = await deps.node.appendRecord(partition, { type: "compact" });
  const scratch = mkdtempSync(join(tmpdir(), "mr-compact-"));
  try {
    const restoreDeps = { ...deps.restore, dataDir: scratch, snapshots };
    const replayed = await replayPartition(restoreDeps, partition, scratch, end);
    await snapshots.capture(partition, { seq: end, epoch: replayed.epoch, tenants: replayed.kept }, scratch);
    // Lands only while this node owns the partition: a fenced-out owner never removes the log.
    await deps.node.appendRecord(partition, { type: "snapshot", seq: end });
    const started = performance.now();
    const overwritten = await overwriteLogBelow(deps.restore.js, partition, end);
    const overwriteMs = Math.round(performance.now() - started);
    await deps.jsm.streams.purge(LOG_STREAM, { filter: logSubject(partition), seq: end });
    return {
      seq: end,
      epoch: replayed.epoch,
      applied: replayed.applied,
      tenants: replayed.kept.length,
      erased: replayed.erased.length,
      deleted: replayed.deleted.length,
      overwritten,
      overwriteMs,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
