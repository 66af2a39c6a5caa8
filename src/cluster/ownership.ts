/**
 * Partition ownership (docs/cluster.md, "Ownership"): leases in `mr-leases`, claimed by the
 * desired owner (rendezvous over live nodes), renewed every tick with a revision-checked update,
 * released to a better-placed live node, and fenced through the changelog (fence.ts). A partition
 * is served only within `serveMs` of its last successful renewal, so a node that cannot renew
 * stops serving by itself before any successor may claim (`staleMs` > `serveMs`).
 */
import type { KV } from "@nats-io/kv";
import type { ClusterTimings } from "./config.ts";
import type { PartitionLog } from "./fence.ts";
import type { Membership } from "./membership.ts";
import { leaseKey, partitionOfLeaseKey } from "./names.ts";
import { desiredOwner, PARTITIONS } from "./partition.ts";

/** A lease this node holds. */
interface Held {
  epoch: number;
  revision: number;
  /** When the last successful renewal (or the claim) was sent, on the local monotonic clock. */
  renewedAt: number;
  /** False while the partition's data is being restored: held (and renewed) but not served yet. */
  ready: boolean;
}

/** A lease as last seen on the watch. */
interface SeenLease {
  owner: string;
  epoch: number;
  revision: number;
  seenAt: number;
}

export interface OwnershipHooks {
  /** Prepares a claimed partition (restores its data) before it is served. */
  onClaimed?: (partition: number, epoch: number) => Promise<void>;
  /** The partition starts (true) or stops (false) being served here. */
  onServing?: (partition: number, serving: boolean) => void;
  /** This node no longer holds the partition, served or still being restored (after `onServing`). */
  onDropped?: (partition: number) => void;
}

export interface LeaseValue {
  owner: string;
  epoch: number;
}

export class Ownership {
  private readonly held = new Map<number, Held>();
  private readonly seen = new Map<number, SeenLease>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private stopWatch = () => {};

  constructor(
    private readonly bucket: KV,
    private readonly log: PartitionLog,
    private readonly membership: Membership,
    private readonly nodeId: string,
    private readonly timings: ClusterTimings,
    private readonly now: () => number,
    private readonly logLine: (line: string) => void,
    private readonly hooks: OwnershipHooks = {},
  ) {}

  async start(): Promise<void> {
    const watch = await this.bucket.watch({ key: ">" });
    this.stopWatch = () => watch.stop();
    void (async () => {
      for await (const entry of watch) {
        const partition = partitionOfLeaseKey(entry.key);
        if (partition === undefined) continue;
        if (entry.operation !== "PUT") {
          this.seen.delete(partition);
          this.tickSoon();
          continue;
        }
        const value = entry.json<LeaseValue>();
        this.seen.set(partition, { ...value, revision: entry.revision, seenAt: this.now() });
      }
    })();
    this.timer = setInterval(() => this.tickSoon(), this.timings.tickMs);
    this.tickSoon();
  }

  /** True while this node holds the partition's lease within its serve window. */
  owns(partition: number): boolean {
    const held = this.held.get(partition);
    if (!held?.ready) return false;
    return this.now() - held.renewedAt < this.timings.serveMs;
  }

  epochOf(partition: number): number | undefined {
    return this.owns(partition) ? this.held.get(partition)?.epoch : undefined;
  }

  /** Who serves the partition now: this node, a live lease holder, or nobody. */
  ownerOf(partition: number): string | undefined {
    if (this.owns(partition)) return this.nodeId;
    const lease = this.seen.get(partition);
    if (!lease || lease.owner === this.nodeId || !this.membership.isLive(lease.owner)) return undefined;
    return lease.owner;
  }

  owned(): number[] {
    return [...this.held.keys()].filter((p) => this.owns(p)).sort((a, b) => a - b);
  }

  /** Every partition's lease holder as seen on the watch. */
  leaseHolders(): Record<string, string> {
    const view: Record<string, string> = {};
    for (const [partition, lease] of [...this.seen].sort(([a], [b]) => a - b)) view[partition] = lease.owner;
    return view;
  }

  /** Stops serving at once (a fenced append, a failed renewal). */
  drop(partition: number, why: string): void {
    const held = this.held.get(partition);
    if (!held) return;
    this.held.delete(partition);
    this.log.forget(partition);
    if (held.ready) this.hooks.onServing?.(partition, false);
    this.hooks.onDropped?.(partition);
    this.logLine(`[cluster] partition ${partition} dropped: ${why}`);
  }

  /** Reconciles soon; a tick already running is followed by one more. */
  tickSoon(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.tick().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.tickSoon();
      }
    });
  }

  private async tick(): Promise<void> {
    const live = this.membership.live();
    await Promise.all(
      Array.from({ length: PARTITIONS }, (_, p) =>
        this.reconcile(p, live).catch((error) => this.logLine(`[cluster] partition ${p}: ${error}`)),
      ),
    );
  }

  private async reconcile(partition: number, live: string[]): Promise<void> {
    if (this.stopped) return;
    const desired = desiredOwner(partition, live);
    const held = this.held.get(partition);
    if (held) {
      if (desired !== undefined && desired !== this.nodeId) return this.release(partition, held);
      return this.renew(partition, held);
    }
    if (desired !== this.nodeId) return;
    const lease = this.seen.get(partition);
    // A lease renewed recently belongs to somebody still serving (or about to stop): wait.
    if (lease && this.now() - lease.seenAt < this.timings.staleMs) return;
    await this.claim(partition, lease?.revision);
  }

  private async claim(partition: number, revision: number | undefined): Promise<void> {
    const started = this.now();
    const key = leaseKey(partition);
    const provisional = JSON.stringify({ owner: this.nodeId, epoch: 0 } satisfies LeaseValue);
    let rev: number;
    try {
      rev =
        revision === undefined
          ? await this.bucket.create(key, provisional)
          : await this.bucket.update(key, provisional, revision);
    } catch {
      return; // somebody else moved first: the watch will show who
    }
    try {
      const epoch = await this.log.claim(partition);
      const value = JSON.stringify({ owner: this.nodeId, epoch } satisfies LeaseValue);
      const renewed = await this.bucket.update(key, value, rev);
      if (this.stopped) return;
      const held: Held = { epoch, revision: renewed, renewedAt: started, ready: false };
      this.held.set(partition, held);
      // Not awaited: renewals (of this and every other partition) go on while the data is restored.
      void this.prepare(partition, held);
    } catch (error) {
      this.log.forget(partition);
      this.logLine(`[cluster] partition ${partition}: claim failed: ${error}`);
    }
  }

  private async prepare(partition: number, held: Held): Promise<void> {
    const started = this.now();
    try {
      await this.hooks.onClaimed?.(partition, held.epoch);
    } catch (error) {
      this.drop(partition, `restore failed: ${error}`);
      return;
    }
    if (this.held.get(partition) !== held) return;
    held.ready = true;
    this.hooks.onServing?.(partition, true);
    const ms = Math.round(this.now() - started);
    this.logLine(`[cluster] partition ${partition} claimed, epoch ${held.epoch}, restored in ${ms} ms`);
  }

  private async renew(partition: number, held: Held): Promise<void> {
    const started = this.now();
    const value = JSON.stringify({ owner: this.nodeId, epoch: held.epoch } satisfies LeaseValue);
    try {
      held.revision = await this.bucket.update(leaseKey(partition), value, held.revision);
      held.renewedAt = started;
    } catch (error) {
      this.drop(partition, `renewal failed: ${error}`);
    }
  }

  /** Stops serving first, then deletes the lease (revision-checked) so the desired owner claims it. */
  private async release(partition: number, held: Held): Promise<void> {
    this.drop(partition, "released to a better-placed node");
    await this.bucket.delete(leaseKey(partition), { previousSeq: held.revision }).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    const held = [...this.held];
    this.held.clear();
    await Promise.all(
      held.map(([p, h]) =>
        this.bucket.delete(leaseKey(p), { previousSeq: h.revision }).catch(() => undefined),
      ),
    );
    this.stopWatch();
  }
}
