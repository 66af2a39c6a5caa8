/**
 * A cluster node's start in stages (serve.ts), each recording the part it started in the
 * NodeState the runtime's ports read (node-state.ts): join (membership, leases, the local copies
 * of partitions), the system state's replica, the periodic snapshots, the webhook intake, the
 * router. The runtime was composed before with the cluster's ports (cluster-ports.ts): a cluster
 * node is the same runtime with other ports passed in, and these parts started beside it.
 */
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { MemoryRuntime } from "../lib.ts";
import type { ClusterConfig } from "./config.ts";
import { deleteCoveredImports } from "./import-log.ts";
import { Intake } from "./intake.ts";
import { checkAtEdge } from "./intake-edge.ts";
import { LocalCopies } from "./local-copies.ts";
import { ClusterNode, type ClusterView } from "./node.ts";
import type { NodeState } from "./node-state.ts";
import { partitionOf } from "./partition.ts";
import { PeriodicSnapshots } from "./periodic-snapshots.ts";
import { tenantOfRequest } from "./request-tenant.ts";
import { restorePartition } from "./restore.ts";
import { ClusterRouter, DEFAULT_ROUTER_OPTIONS } from "./router.ts";
import { Snapshots } from "./snapshots.ts";
import type { SystemReplica } from "./system-replica.ts";
import { type SystemState, type SystemStateView, startSystemState } from "./system-state.ts";

/** What every stage is given: the runtime, the state its ports read, and what the stages share. */
export interface NodeContext {
  runtime: MemoryRuntime;
  state: NodeState;
  cluster: ClusterConfig;
  log: (line: string) => void;
  /** Connectors, outbound workers and the bridge follow the placement port for these tenants. */
  placementChanged(tenantIds: string[]): void;
  tenantsOf(partition: number): string[];
  localApp(request: Request): Promise<Response>;
  snapshotStore(): Promise<Snapshots>;
  /** Partitions whose takeover found a compaction owed (restore.ts): compacted once served. */
  compactionOwed: Set<number>;
  replica: PromiseWithResolvers<SystemReplica>;
  /** The system state as of now (a deleted tenant's records are not replayed). */
  tenantExists(tenantId: string): Promise<boolean>;
}

export interface Joined {
  node: ClusterNode;
  js: JetStreamClient;
  jsm: JetStreamManager;
  localCopies: LocalCopies;
}

export function nodeContext(
  runtime: MemoryRuntime,
  state: NodeState,
  cluster: ClusterConfig,
  log: (line: string) => void,
): NodeContext {
  const { store } = runtime.internals.stores;
  // Connectors, outbound workers and the bridge follow the placement port (cluster-ports.ts): they
  // run for the tenants of the partitions served here, once the system state is caught up.
  const placementChanged = (tenantIds: string[]) =>
    void runtime.internals
      .placementChanged(tenantIds)
      .catch((error) => log(`[cluster] connectors: ${error}`));
  const tenantsOf = (partition: number) =>
    store
      .listTenants()
      .map((t) => t.tenant_id)
      .filter((tenantId) => partitionOf(tenantId) === partition);
  let snapshots: Promise<Snapshots> | undefined;
  const replica = Promise.withResolvers<SystemReplica>();
  return {
    ...{ runtime, state, cluster, log, placementChanged, tenantsOf, replica },
    localApp: async (request) => runtime.app.handle(request),
    snapshotStore: () => (snapshots ??= Snapshots.open(state.node.get().nc)),
    compactionOwed: new Set(),
    tenantExists: async (tenantId) => {
      const caughtUp = await replica.promise;
      if (store.getTenant(tenantId) === undefined) await caughtUp.catchUp();
      return store.getTenant(tenantId) !== undefined;
    },
  };
}

/** Joins: claims partitions (each restored first), drops those it loses. */
export async function joinCluster(ctx: NodeContext): Promise<Joined> {
  const { runtime, state, log } = ctx;
  const { config, clock } = runtime.internals.stores;
  const passivateTenant = runtime.internals.passivateTenant;
  // Vaults of partitions not served here are removed; their removals and restores never overlap.
  const localCopies = new LocalCopies({
    dataDir: config.dataDir,
    passivateTenant,
    stopRunning: (partition) => runtime.internals.placementChanged(ctx.tenantsOf(partition)),
    serves: (partition) => state.owns(partition),
    clock,
    log,
  });
  // What it held before it started (killed) is never read again: a claim rebuilds it.
  void localCopies.removeAll();
  const node = await ClusterNode.start(ctx.cluster, log, {
    onClaimed: (partition, epoch) => localCopies.serially(partition, () => restore(ctx, partition, epoch)),
    onServing: (partition, serving) => {
      state.periodic.ifStarted(
        (periodic) => periodic.serving(partition, serving, serving && ctx.compactionOwed.delete(partition)),
        undefined,
      );
      if (!serving) state.ledger.forget(partition);
      ctx.placementChanged(ctx.tenantsOf(partition));
      state.intake.ifStarted((intake) => {
        if (serving)
          void intake
            .startPartition(partition)
            .catch((error) => log(`[cluster] intake ${partition}: ${error}`));
        else intake.stopPartition(partition);
      }, undefined);
    },
    onDropped: (partition) => void localCopies.remove(partition),
  });
  // From here the placement port serves the partitions this node holds, and writes are logged.
  state.node.started(node);
  return { node, js: jetstream(node.nc), jsm: await jetstreamManager(node.nc), localCopies };
}

/** A claimed partition's data: whatever this node held of it dropped, the snapshot and the log tail. */
async function restore(ctx: NodeContext, partition: number, epoch: number): Promise<void> {
  const { runtime, state, log } = ctx;
  const node = state.node.get();
  const restoreDeps = {
    js: jetstream(node.nc),
    dataDir: runtime.internals.stores.config.dataDir,
    passivateTenant: runtime.internals.passivateTenant,
    snapshots: await ctx.snapshotStore(),
    imports: await state.imports(),
    tenantExists: ctx.tenantExists,
    log,
  };
  const report = await restorePartition(restoreDeps, partition, epoch);
  if (report.compactionOwed) ctx.compactionOwed.add(partition);
  if (report.applied > 0 || report.snapshot > 0)
    log(
      `[cluster] partition ${partition}: snapshot at ${report.snapshot}, then ${report.applied} writes replayed (${report.tenants} tenants)`,
    );
}

/** Replicates the system state (tenants, roles, audit) and catches up on it. */
export async function replicateSystem(ctx: NodeContext, { node, js, jsm }: Joined): Promise<SystemState> {
  const { store, clock } = ctx.runtime.internals.stores;
  const systemState = await startSystemState({
    store,
    nc: node.nc,
    js,
    jsm,
    serves: (partition) => ctx.state.owns(partition),
    partitionOf,
    placementChanged: ctx.placementChanged,
    everyCommands: ctx.cluster.systemSnapshotCommands,
    clock,
    log: ctx.log,
  });
  ctx.state.system.started(systemState);
  ctx.replica.resolve(systemState.replica);
  return systemState;
}

/** Snapshots and compacts the partitions served here; appends count towards them from now. */
export async function startSnapshots(
  ctx: NodeContext,
  { node, js, jsm }: Joined,
): Promise<PeriodicSnapshots> {
  const { runtime, state, log } = ctx;
  const { store, clock } = runtime.internals.stores;
  const periodic = new PeriodicSnapshots({
    node,
    jsm,
    snapshots: ctx.snapshotStore,
    restore: {
      js,
      passivateTenant: runtime.internals.passivateTenant,
      imports: await state.imports(),
      tenantExists: ctx.tenantExists,
      log,
    },
    clock,
    policy: ctx.cluster.snapshots,
    log,
    purged: (partition, snapshot) =>
      deleteCoveredImports(
        { imports: () => state.imports(), ledger: state.ledger, log },
        partition,
        snapshot,
      ),
  });
  // Appends count towards snapshots, and erasures and deletions are answered once compacted.
  state.periodic.started(periodic);
  // The system state is here now: the tenants of partitions claimed meanwhile start their connectors.
  ctx.placementChanged(store.listTenants().map((t) => t.tenant_id));
  // Partitions served before it existed count from now.
  for (const partition of node.ownership.owned())
    periodic.serving(partition, true, ctx.compactionOwed.delete(partition));
  periodic.start();
  return periodic;
}

/** A tenant created on another node a moment ago: catch up on the system stream once. */
function knowTenant(ctx: NodeContext, replica: SystemReplica) {
  const { store } = ctx.runtime.internals.stores;
  return async (tenantId: string) => {
    if (store.getTenant(tenantId) === undefined) await replica.catchUp();
  };
}

/** Consumes the webhook intake of the partitions served here. */
export async function startIntake(ctx: NodeContext, { node, js, jsm }: Joined, system: SystemState) {
  const known = knowTenant(ctx, system.replica);
  const edge = { store: ctx.runtime.internals.stores.store, ingest: ctx.runtime.internals.services.ingest };
  const intake = new Intake(
    node,
    js,
    jsm,
    async (request) => {
      const tenantId = tenantOfRequest(request);
      if (tenantId) await known(tenantId);
      return ctx.localApp(request);
    },
    ctx.log,
    undefined,
    async (request, target, body) => {
      await known(target.tenantId);
      return checkAtEdge(edge, request, target, body);
    },
  );
  // Published only once its stream exists: partitions claimed meanwhile start consuming below.
  await intake.start();
  ctx.state.intake.started(intake);
  // Partitions claimed before the intake existed start consuming now.
  for (const partition of node.ownership.owned()) void intake.startPartition(partition);
  return intake;
}

/** The router in front of the app: answers here what is served here, forwards the rest. */
export function startRouter(ctx: NodeContext, { node }: Joined, system: SystemState, intake: Intake) {
  const { clock, telemetry } = ctx.runtime.internals.stores;
  const app = (request: Request) =>
    withClusterView(request, ctx.localApp(request), () => ({ ...node.view(), system: system.view() }));
  const router = new ClusterRouter(node, app, {
    ...DEFAULT_ROUTER_OPTIONS,
    beforeServe: knowTenant(ctx, system.replica),
    intake,
    now: () => clock.now(),
    telemetry,
  });
  router.listen();
  // The dashboard's figures of other nodes' tenants are asked through it (cluster-ports.ts).
  return ctx.state.router.started(router);
}

/** Adds `cluster` to the `/healthz` answer (declared optional in its schema). */
async function withClusterView(
  request: Request,
  answer: Response | Promise<Response>,
  view: () => ClusterView & { system: SystemStateView },
): Promise<Response> {
  const response = await answer;
  if (request.method !== "GET" || new URL(request.url).pathname !== "/healthz" || response.status !== 200)
    return response;
  const body = { ...((await response.json()) as Record<string, unknown>), cluster: view() };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: 200, headers });
}
