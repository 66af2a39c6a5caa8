/**
 * One runtime node's membership in the cluster: the NATS connection, the buckets and streams it
 * needs (created if absent, identically by every node), heartbeats and partition ownership.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { ClusterConfig } from "./config.ts";
import { Fenced, PartitionLog } from "./fence.ts";
import { Membership } from "./membership.ts";
import { LEASES_BUCKET, LOG_STREAM, LOG_SUBJECTS, NODES_BUCKET } from "./names.ts";
import { Ownership, type OwnershipHooks } from "./ownership.ts";
import { PARTITIONS, partitionOf } from "./partition.ts";

/** What `/healthz` shows in cluster mode. */
export interface ClusterView {
  node_id: string;
  /** Partitions this node serves now. */
  partitions: number[];
  /** Nodes this node sees as live. */
  nodes: string[];
  /** Lease holders of all partitions as this node sees them (partition → node). */
  owners: Record<string, string>;
  partition_count: number;
}

export class ClusterNode {
  private constructor(
    readonly nc: NatsConnection,
    readonly config: ClusterConfig,
    readonly membership: Membership,
    readonly ownership: Ownership,
    readonly log: PartitionLog,
  ) {}

  static async start(
    config: ClusterConfig,
    logLine: (line: string) => void = console.error,
    hooks: OwnershipHooks = {},
  ): Promise<ClusterNode> {
    const nc = await connect({ servers: config.servers, name: config.nodeId, maxReconnectAttempts: -1 });
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    const kvm = new Kvm(nc);
    // Bucket-wide TTL only garbage-collects dead nodes' keys: liveness never rests on expiry.
    const nodes = await kvm.create(NODES_BUCKET, { history: 1, ttl: 15_000 });
    const leases = await kvm.create(LEASES_BUCKET, { history: 1 });
    await ensureLogStream(jsm);
    const now = () => performance.now();
    // Room left in a message for the publish's headers: a larger record goes in parts.
    const log = new PartitionLog(
      js,
      jsm,
      config.nodeId,
      () => (nc.info?.max_payload ?? 1024 * 1024) - 64 * 1024,
    );
    let ownership: Ownership | undefined;
    const membership = new Membership(
      nodes,
      { node_id: config.nodeId, started_at: new Date().toISOString() },
      config.timings,
      now,
      () => ownership?.tickSoon(),
    );
    ownership = new Ownership(leases, log, membership, config.nodeId, config.timings, now, logLine, hooks);
    await membership.start();
    await ownership.start();
    return new ClusterNode(nc, config, membership, ownership, log);
  }

  get nodeId(): string {
    return this.config.nodeId;
  }

  /**
   * Appends a fenced record to the tenant's partition log; throws `Fenced` (after dropping the
   * partition) when this node does not serve it or the append failed.
   */
  appendWrite(tenantId: string, record: { type: string; [field: string]: unknown }): Promise<number> {
    return this.appendRecord(partitionOf(tenantId), record);
  }

  /** Appends a fenced record to the partition's log under this node's epoch; answers its sequence. */
  async appendRecord(partition: number, record: { type: string; [field: string]: unknown }): Promise<number> {
    const epoch = this.ownership.epochOf(partition);
    if (epoch === undefined) throw new Fenced(partition);
    try {
      return await this.log.append(partition, epoch, record);
    } catch (error) {
      // Refused or unanswered: the local vault may now hold a write the log lacks, so the
      // partition is dropped and rebuilt from the log at its next claim.
      this.ownership.drop(partition, `append failed: ${error}`);
      throw error instanceof Fenced ? error : new Fenced(partition);
    }
  }

  view(): ClusterView {
    return {
      node_id: this.nodeId,
      partitions: this.ownership.owned(),
      nodes: this.membership.live().sort(),
      owners: this.ownership.leaseHolders(),
      partition_count: PARTITIONS,
    };
  }

  /** Releases every lease and the heartbeat so the others take over at once, then disconnects. */
  async stop(): Promise<void> {
    await this.ownership.stop();
    await this.membership.stop();
    await this.nc.drain().catch(() => undefined);
  }
}

async function ensureLogStream(jsm: Awaited<ReturnType<typeof jetstreamManager>>): Promise<void> {
  try {
    await jsm.streams.info(LOG_STREAM);
  } catch {
    await jsm.streams.add({ name: LOG_STREAM, subjects: [LOG_SUBJECTS] }).catch(async (error) => {
      // Another node created it meanwhile.
      await jsm.streams.info(LOG_STREAM).catch(() => {
        throw error;
      });
    });
  }
}
