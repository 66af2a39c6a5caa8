/**
 * Periodic system snapshots (docs/cluster.md, "Cluster-wide system state"): the node serving
 * partition 0 uploads a copy of its system store after `everyCommands` `MR_SYSTEM` commands since
 * the newest snapshot, then purges the stream below the copy's sequence, so neither the stream nor
 * a new node's catch-up grows with the cluster's history (denials are commands).
 *
 * Order: the copy is uploaded whole (a listed object is complete), older snapshots are deleted,
 * then the stream is purged below the copy's sequence `S` (the command at `S` stays). So every
 * purge is below a complete snapshot, and a snapshot is deleted only once a newer one is complete:
 * the newest snapshot always covers what the stream lacks. Two nodes that both think they serve
 * partition 0 (a move in progress) may both snapshot; each purges only below its own complete
 * copy, which that rule keeps safe.
 */
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { SYSTEM_STREAM } from "./system-replica.ts";
import type { SystemSnapshots } from "./system-snapshots.ts";

/** A snapshot that failed is tried again no sooner than this (on the injected clock). */
const RETRY_AFTER_MS = 10_000;
/** The partition whose owner takes the system snapshots: exactly one live node serves it. */
export const SYSTEM_SNAPSHOT_PARTITION = 0;

export interface SystemSnapshotScheduleDeps {
  store: SystemStore;
  jsm: JetStreamManager;
  snapshots: () => Promise<SystemSnapshots>;
  /** Whether this node serves partition 0 now. */
  takesSnapshots: () => boolean;
  everyCommands: number;
  clock: Clock;
  log: (line: string) => void;
}

export class SystemSnapshotSchedule {
  /** The newest snapshot's sequence as last read from the object store (undefined: not read yet). */
  private newest: number | undefined;
  private running = false;
  private notBefore = 0;
  private snapshotsTaken = 0;

  constructor(private readonly deps: SystemSnapshotScheduleDeps) {}

  /** Snapshots taken by this process. */
  get taken(): number {
    return this.snapshotsTaken;
  }

  /** A command applied here at `seq`: a snapshot is due `everyCommands` after the newest one. */
  applied(seq: number): void {
    if (this.running || !this.deps.takesSnapshots() || this.deps.clock.now() < this.notBefore) return;
    if (this.newest !== undefined && seq - this.newest < this.deps.everyCommands) return;
    void this.take(seq);
  }

  private async take(seq: number): Promise<void> {
    this.running = true;
    try {
      const snapshots = await this.deps.snapshots();
      // Read again each time: another node may have served partition 0 (and snapshotted) meanwhile.
      this.newest = await snapshots.latestSeq();
      if (seq - this.newest < this.deps.everyCommands) return;
      const taken = await snapshots.capture(this.deps.store);
      // Another node's snapshot was as new: nothing uploaded here, the newest is read again.
      if (taken === 0) {
        this.newest = await snapshots.latestSeq();
        return;
      }
      await this.deps.jsm.streams.purge(SYSTEM_STREAM, { seq: taken });
      this.deps.log(
        `[cluster] system snapshot at ${taken} (${taken - this.newest} commands since the previous one), MR_SYSTEM purged below it`,
      );
      this.newest = taken;
      this.snapshotsTaken++;
    } catch (error) {
      this.notBefore = this.deps.clock.now() + RETRY_AFTER_MS;
      this.deps.log(`[cluster] system snapshot failed (retried after ${RETRY_AFTER_MS / 1000} s): ${error}`);
    } finally {
      this.running = false;
    }
  }
}
