/**
 * The cluster-wide system state of one node (docs/cluster.md, "Cluster-wide system state"): its
 * system store as a replica of `MR_SYSTEM`, the periodic system snapshots taken while this node
 * serves partition 0, and what follows a tenant's creation, suspension, resumption or deletion
 * applied here (whoever issued it): its owner brings the tenant's connectors and workers in line.
 */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Clock } from "../runtime/clock.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { DEFAULT_SYSTEM_SNAPSHOT_COMMANDS } from "./config.ts";
import { SystemReplica, type SystemReplicaView } from "./system-replica.ts";
import { SYSTEM_SNAPSHOT_PARTITION, SystemSnapshotSchedule } from "./system-snapshot-schedule.ts";
import { SystemSnapshots } from "./system-snapshots.ts";

export interface SystemStateDeps {
  store: SystemStore;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Whether this node serves the partition now. */
  serves: (partition: number) => boolean;
  /** The partition of a tenant. */
  partitionOf: (tenantId: string) => number;
  /** Reconciles these tenants' connectors, outbound workers and bridge here. */
  placementChanged: (tenantIds: string[]) => void;
  everyCommands?: number;
  clock: Clock;
  log: (line: string) => void;
}

/** What `/healthz` shows of the system state (cluster mode). */
export interface SystemStateView extends SystemReplicaView {
  /** System snapshots this process uploaded. */
  snapshots_taken: number;
}

export interface SystemState {
  replica: SystemReplica;
  view(): SystemStateView;
  stop(): void;
}

/** Resolves once the local store holds every command published before the call. */
export async function startSystemState(deps: SystemStateDeps): Promise<SystemState> {
  let opened: Promise<SystemSnapshots> | undefined;
  const snapshots = () => (opened ??= SystemSnapshots.open(deps.nc));
  const schedule = new SystemSnapshotSchedule({
    store: deps.store,
    jsm: deps.jsm,
    snapshots,
    takesSnapshots: () => deps.serves(SYSTEM_SNAPSHOT_PARTITION),
    everyCommands: deps.everyCommands ?? DEFAULT_SYSTEM_SNAPSHOT_COMMANDS,
    clock: deps.clock,
    log: deps.log,
  });
  // Only the tenant's owner runs its connectors; the others have nothing of it to reconcile.
  const owned = (tenantIds: string[]) => tenantIds.filter((t) => deps.serves(deps.partitionOf(t)));
  let started = false;
  const follow = (tenantIds: string[]) => {
    // Before the start, the caller reconciles every tenant once the store is caught up.
    if (!started) return;
    const mine = owned(tenantIds);
    if (mine.length > 0) deps.placementChanged(mine);
  };
  const replica = new SystemReplica({
    store: deps.store,
    js: deps.js,
    jsm: deps.jsm,
    snapshots,
    tenantChanged: (tenantId) => follow([tenantId]),
    replaced: follow,
    applied: (seq) => schedule.applied(seq),
    clock: deps.clock,
    log: deps.log,
  });
  await replica.start();
  started = true;
  return {
    replica,
    view: () => ({ ...replica.view(), snapshots_taken: schedule.taken }),
    stop: () => replica.stop(),
  };
}
