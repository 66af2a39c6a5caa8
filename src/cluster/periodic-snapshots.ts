/**
 * Periodic partition snapshots (docs/cluster.md, "Snapshots"): the owner of a partition snapshots
 * it after `everyRecords` changelog writes or `everyMs` (on the injected clock) since its last
 * snapshot, then purges the log the snapshot covers, so the log and a takeover's replay stay
 * bounded for a partition that never moves.
 *
 * The serving vaults are never copied while they take writes: the snapshot is rebuilt in a scratch
 * directory from the previous snapshot and the log up to the owner's last append (exactly that
 * state, whatever is written meanwhile). Order: files, manifest, then a fenced `snapshot` record
 * (it lands only while this node still owns the partition), then the purge of the subject below
 * the snapshot's sequence (the record at it stays, and so does everything a newer owner appended).
 * A takeover that read an older manifest before the purge notices its sequence is gone from the
 * log and reads again (restore.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Clock, TimerHandle } from "../runtime/clock.ts";
import type { SnapshotPolicy } from "./config.ts";
import { LOG_STREAM, logSubject } from "./names.ts";
import type { ClusterNode } from "./node.ts";
import { type RestoreDeps, replayPartition } from "./restore.ts";
import type { Snapshots } from "./snapshots.ts";

/** A snapshot that failed is tried again no sooner than this. */
const RETRY_AFTER_MS = 10_000;

interface Served {
  /** Writes appended since the last snapshot, and the sequence of the last one. */
  records: number;
  lastSeq: number;
  lastAt: number;
  notBefore: number;
  running: boolean;
}

export interface PeriodicSnapshotDeps {
  node: ClusterNode;
  jsm: JetStreamManager;
  snapshots: () => Promise<Snapshots>;
  /** What a replay needs, but the directory (a scratch one here). */
  restore: Omit<RestoreDeps, "dataDir" | "snapshots">;
  clock: Clock;
  policy: SnapshotPolicy;
  log: (line: string) => void;
  /**
   * The log below the snapshot at `seq` (of epoch `epoch`) was purged: what only that part of the
   * log referred to can go (import objects, import-log.ts).
   */
  purged?: (partition: number, snapshot: { seq: number; epoch: number }) => Promise<void>;
}

export class PeriodicSnapshots {
  private readonly served = new Map<number, Served>();
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly deps: PeriodicSnapshotDeps) {}

  /** Checks the time trigger every second (or every `everyMs`, if shorter). */
  start(): void {
    const every = Math.min(this.deps.policy.everyMs, 1000);
    const tick = () => {
      if (this.stopped) return;
      for (const partition of this.served.keys()) if (this.due(partition)) void this.take(partition);
      this.timer = this.deps.clock.setTimeout(tick, every);
    };
    this.timer = this.deps.clock.setTimeout(tick, every);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** The partition starts or stops being served here: its counts start afresh. */
  serving(partition: number, serving: boolean): void {
    if (!serving) this.served.delete(partition);
    else {
      const now = this.deps.clock.now();
      this.served.set(partition, { records: 0, lastSeq: 0, lastAt: now, notBefore: now, running: false });
    }
  }

  /** A write record this node appended at `seq`. */
  appended(partition: number, seq: number): void {
    const state = this.served.get(partition);
    if (!state) return;
    state.records++;
    state.lastSeq = Math.max(state.lastSeq, seq);
    if (this.due(partition)) void this.take(partition);
  }

  private due(partition: number): boolean {
    const state = this.served.get(partition);
    if (!state || state.running || state.records === 0) return false;
    const now = this.deps.clock.now();
    if (now < state.notBefore) return false;
    return state.records >= this.deps.policy.everyRecords || now - state.lastAt >= this.deps.policy.everyMs;
  }

  /** Snapshots the partition up to its last append, then purges the log below it. */
  private async take(partition: number): Promise<void> {
    const state = this.served.get(partition)!;
    state.running = true;
    const upTo = state.lastSeq;
    const covered = state.records;
    const scratch = mkdtempSync(join(tmpdir(), "mr-periodic-"));
    try {
      const snapshots = await this.deps.snapshots();
      const restoreDeps = { ...this.deps.restore, dataDir: scratch, snapshots };
      const replayed = await replayPartition(restoreDeps, partition, scratch, upTo);
      await snapshots.capture(
        partition,
        { seq: upTo, epoch: replayed.epoch, tenants: replayed.kept },
        scratch,
      );
      // Lands only while this node owns the partition: a fenced-out owner never purges.
      await this.deps.node.appendRecord(partition, { type: "snapshot", seq: upTo });
      await this.deps.jsm.streams.purge(LOG_STREAM, { filter: logSubject(partition), seq: upTo });
      await this.deps.purged?.(partition, { seq: upTo, epoch: replayed.epoch });
      state.records -= covered;
      state.lastAt = this.deps.clock.now();
      this.deps.log(
        `[cluster] partition ${partition}: periodic snapshot at ${upTo} (${replayed.applied} writes since the previous one, ${replayed.kept.length} tenants), log purged below it`,
      );
    } catch (error) {
      state.notBefore = this.deps.clock.now() + RETRY_AFTER_MS;
      this.deps.log(`[cluster] partition ${partition}: periodic snapshot failed: ${error}`);
    } finally {
      state.running = false;
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}
