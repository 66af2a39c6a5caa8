/**
 * When the owner compacts a partition it serves (docs/cluster.md, "Snapshots"; the procedure is
 * compaction.ts): periodically, after `everyRecords` changelog writes or `everyMs` (on the injected
 * clock) since its last snapshot, so the log and a takeover's replay stay bounded for a partition
 * that never moves; at once when asked (`compactNow`: an erasure, a tenant's deletion), the answer
 * waiting for it; and soon after a takeover that found a compaction owed (restore.ts).
 *
 * One compaction of a partition runs at a time on this node. A request made while one runs waits
 * for the next one (the running one's end may be before what the request must cover), and the
 * requests made meanwhile share that next one. A compaction that failed is retried 10 s later
 * while it is owed (asked for, or the takeover's), else at the next periodic trigger.
 */
import type { Clock, TimerHandle } from "../runtime/clock.ts";
import { type CompactionDeps, compactPartition } from "./compaction.ts";
import type { SnapshotPolicy } from "./config.ts";
import { Fenced } from "./fence.ts";

/** A snapshot that failed is tried again no sooner than this. */
const RETRY_AFTER_MS = 10_000;

interface Served {
  /** Writes appended since the last snapshot, and when that was. */
  records: number;
  lastAt: number;
  notBefore: number;
  running: Promise<void> | undefined;
  /** The next compaction, asked for while one runs. */
  queued: Promise<void> | undefined;
  /** A compaction was asked for (or a takeover found one owed) and none finished since. */
  owed: boolean;
}

export interface PeriodicSnapshotDeps extends CompactionDeps {
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
      for (const [partition, state] of this.served)
        if (this.due(partition)) void this.take(partition, state).catch(() => undefined);
      this.timer = this.deps.clock.setTimeout(tick, every);
    };
    this.timer = this.deps.clock.setTimeout(tick, every);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /**
   * The partition starts or stops being served here: its counts start afresh. `owed`: the takeover
   * found a compaction owed, done at the next tick.
   */
  serving(partition: number, serving: boolean, owed = false): void {
    if (!serving) this.served.delete(partition);
    else {
      const now = this.deps.clock.now();
      this.served.set(partition, {
        records: 0,
        lastAt: now,
        notBefore: now,
        running: undefined,
        queued: undefined,
        owed,
      });
    }
  }

  /**
   * Compacts the partition now (after the one running, if any); resolves once done. `Fenced` when
   * the partition is not served here (or stops being served meanwhile).
   */
  compactNow(partition: number): Promise<void> {
    const state = this.served.get(partition);
    if (!state) return Promise.reject(new Fenced(partition));
    state.owed = true;
    if (!state.running) return this.take(partition, state);
    state.queued ??= state.running
      .catch(() => undefined)
      .then(() => {
        state.queued = undefined;
        return this.take(partition, state);
      });
    return state.queued;
  }

  /** Whether a compaction of the partition is owed or under way here. */
  owes(partition: number): boolean {
    const state = this.served.get(partition);
    return state !== undefined && (state.owed || state.running !== undefined);
  }

  /** A write record this node appended at `seq`. */
  appended(partition: number, _seq?: number): void {
    const state = this.served.get(partition);
    if (!state) return;
    state.records++;
    if (this.due(partition)) void this.take(partition, state).catch(() => undefined);
  }

  private due(partition: number): boolean {
    const state = this.served.get(partition);
    if (!state || state.running || state.queued) return false;
    const now = this.deps.clock.now();
    if (now < state.notBefore) return false;
    if (state.owed) return true;
    if (state.records === 0) return false;
    return state.records >= this.deps.policy.everyRecords || now - state.lastAt >= this.deps.policy.everyMs;
  }

  /** Compacts the partition (compaction.ts); a failure is logged, retried later, and thrown. */
  private take(partition: number, state: Served): Promise<void> {
    if (this.served.get(partition) !== state) return Promise.reject(new Fenced(partition));
    const covered = state.records;
    const owed = state.owed;
    state.owed = false;
    const what = owed ? "compaction" : "periodic snapshot";
    const run = (async () => {
      const started = performance.now();
      try {
        const done = await compactPartition(this.deps, partition);
        await this.deps.purged?.(partition, { seq: done.seq, epoch: done.epoch });
        state.records -= covered;
        state.lastAt = this.deps.clock.now();
        this.deps.log(
          `[cluster] partition ${partition}: ${what} at ${done.seq} (${done.applied} writes since the previous one, ${done.tenants} tenants, ${done.erased} with entries erased, ${done.deleted} deleted), log overwritten and purged below it (${done.overwritten} messages in ${done.overwriteMs} ms), in ${Math.round(performance.now() - started)} ms`,
        );
      } catch (error) {
        // Still owed: retried after the delay (and by the next owner, whose replay meets the same).
        if (owed) state.owed = true;
        state.notBefore = this.deps.clock.now() + RETRY_AFTER_MS;
        this.deps.log(`[cluster] partition ${partition}: ${what} failed: ${error}`);
        throw error;
      } finally {
        state.running = undefined;
      }
    })();
    state.running = run;
    return run;
  }
}
