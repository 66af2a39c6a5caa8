/**
 * Serving a runtime as a cluster node: joins the cluster, replicates the system state, restores
 * partitions it claims, consumes their webhook intake, answers forwarded requests, and listens with
 * the router in front of the app. `/healthz` gains the cluster view (node, owned partitions, live
 * nodes, lease holders).
 *
 * The runtime is composed for it first (`createClusterRuntime`): cluster mode's ports
 * (cluster-ports.ts: vault writes and imports logged to the partition changelog, placement,
 * erasure follow-ups, figures) are passed in then and never replaced; they read a NodeState
 * (node-state.ts) that `serveClusterNode` fills as it starts each part of the node.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Unavailable } from "../errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId } from "../http/request-id.ts";
import { bindOrRefuse, serverOptions } from "../http/server-options.ts";
import { type DrainReport, drainRequests } from "../http/shutdown-gate.ts";
import { configOf, createRuntime, type MemoryRuntime, type RuntimeOptions } from "../lib.ts";
import { closeMemoryStreams } from "../routes/memory-stream.ts";
import { systemClock } from "../runtime/clock.ts";
import { builtHolding, type DataDirLock, lockDataDir } from "../vault/data-dir-lock.ts";
import { clusterPorts } from "./cluster-ports.ts";
import { type ClusterConfig, derivedAdvertiseUrl } from "./config.ts";
import { deleteCoveredImports } from "./import-log.ts";
import { Intake } from "./intake.ts";
import { checkAtEdge } from "./intake-edge.ts";
import { LocalCopies } from "./local-copies.ts";
import { ClusterNode, type ClusterView } from "./node.ts";
import { NodeState } from "./node-state.ts";
import { partitionOf } from "./partition.ts";
import { PeriodicSnapshots } from "./periodic-snapshots.ts";
import { tenantOfRequest } from "./request-tenant.ts";
import { restorePartition } from "./restore.ts";
import { ClusterRouter, DEFAULT_ROUTER_OPTIONS } from "./router.ts";
import { Snapshots } from "./snapshots.ts";
import type { SystemReplica } from "./system-replica.ts";
import { type SystemStateView, startSystemState } from "./system-state.ts";

/** A runtime composed for cluster mode, and the state its ports read (node-state.ts). */
export interface ClusterRuntime {
  runtime: MemoryRuntime;
  state: NodeState;
  /**
   * The data directory's lock, held past the runtime's stop: released by the server's `stop` once
   * the node's local copies are removed, so no new owner starts while they still go.
   */
  dataDirLock: DataDirLock;
}

export interface ClusterServer {
  node: ClusterNode;
  url: string;
  /**
   * Drains the requests in flight (readiness fails and new ones are refused meanwhile), releases
   * the leases (so the others take over at once), then stops the runtime.
   */
  stop(): Promise<DrainReport>;
}

/**
 * Composes a runtime for cluster mode: its ports (cluster-ports.ts) are built first and passed in,
 * reading a NodeState that `serveClusterNode` fills as the node starts. Until then it serves no
 * tenant. Throws what `createRuntime` throws (ConfigError).
 */
export function createClusterRuntime(options: RuntimeOptions = {}): ClusterRuntime {
  const state = new NodeState();
  const ports = clusterPorts(state, options.clock ?? systemClock, options.log ?? console.error);
  const config = configOf(options);
  const dataDirLock = lockDataDir(config.dataDir);
  return builtHolding(dataDirLock, () => ({
    runtime: createRuntime({ ...options, config, ports, dataDirLock }),
    state,
    dataDirLock,
  }));
}

/**
 * Listens first, so a port in use refuses the start (PortInUse) before the node joins the cluster;
 * until the node is ready to route, requests are answered 503.
 */
export async function serveClusterNode(
  clustered: ClusterRuntime,
  cluster: ClusterConfig,
  log: (line: string) => void = console.error,
): Promise<ClusterServer> {
  const { config } = clustered.runtime.internals.deps;
  let router: ClusterRouter | undefined;
  const server = bindOrRefuse(config.host, config.port, () =>
    Bun.serve({
      port: config.port,
      hostname: config.host,
      ...serverOptions(config),
      fetch: (request) => router?.handle(request) ?? starting(request),
    }),
  );
  try {
    return await startNode(clustered, cluster, log, server, (ready) => {
      router = ready;
    });
  } catch (error) {
    server.stop(true);
    throw error;
  }
}

function starting(request: Request): Response {
  const error = new Unavailable("the node is joining the cluster; retry in a moment");
  return problemResponse(error, assignRequestId(request));
}

async function startNode(
  { runtime, state, dataDirLock }: ClusterRuntime,
  cluster: ClusterConfig,
  log: (line: string) => void,
  server: Bun.Server<undefined>,
  route: (router: ClusterRouter) => void,
): Promise<ClusterServer> {
  const { config, store, clock } = runtime.internals.deps;
  const passivateTenant = runtime.internals.passivateTenant;
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
  const localApp = async (request: Request) => runtime.app.handle(request);
  let snapshots: Promise<Snapshots> | undefined;
  const snapshotStore = () => (snapshots ??= Snapshots.open(state.joined().nc));
  // Partitions whose takeover found a compaction owed (restore.ts): compacted once served.
  const compactionOwed = new Set<number>();
  const replicaStarted = Promise.withResolvers<SystemReplica>();
  // The system state as of now (a deleted tenant's records are not replayed).
  const tenantExists = async (tenantId: string) => {
    const replica = await replicaStarted.promise;
    if (store.getTenant(tenantId) === undefined) await replica.catchUp();
    return store.getTenant(tenantId) !== undefined;
  };
  // A claimed partition's data: whatever this node held of it dropped, the snapshot and the log tail.
  const restore = async (partition: number, epoch: number): Promise<void> => {
    const node = state.joined();
    const restoreDeps = {
      js: jetstream(node.nc),
      dataDir: config.dataDir,
      passivateTenant,
      snapshots: await snapshotStore(),
      imports: await state.imports(),
      tenantExists,
      log,
    };
    const report = await restorePartition(restoreDeps, partition, epoch);
    if (report.compactionOwed) compactionOwed.add(partition);
    if (report.applied > 0 || report.snapshot > 0)
      log(
        `[cluster] partition ${partition}: snapshot at ${report.snapshot}, then ${report.applied} writes replayed (${report.tenants} tenants)`,
      );
  };
  // Vaults of partitions not served here are removed; their removals and restores never overlap.
  const localCopies = new LocalCopies({
    dataDir: config.dataDir,
    passivateTenant,
    stopRunning: (partition) => runtime.internals.placementChanged(tenantsOf(partition)),
    serves: (partition) => state.owns(partition),
    clock,
    log,
  });
  // What it held before it started (killed) is never read again: a claim rebuilds it.
  void localCopies.removeAll();
  const node = await ClusterNode.start(cluster, log, {
    onClaimed: (partition, epoch) => localCopies.serially(partition, () => restore(partition, epoch)),
    onServing: (partition, serving) => {
      state.periodic?.serving(partition, serving, serving && compactionOwed.delete(partition));
      if (!serving) state.ledger.forget(partition);
      placementChanged(tenantsOf(partition));
      const intake = state.intake;
      if (!intake) return;
      if (serving)
        void intake
          .startPartition(partition)
          .catch((error) => log(`[cluster] intake ${partition}: ${error}`));
      else intake.stopPartition(partition);
    },
    onDropped: (partition) => void localCopies.remove(partition),
  });
  // From here the placement port serves the partitions this node holds, and writes are logged.
  state.node = node;
  const js = jetstream(node.nc);
  const jsm = await jetstreamManager(node.nc);
  const systemState = await startSystemState({
    store,
    nc: node.nc,
    js,
    jsm,
    serves: (partition) => state.owns(partition),
    partitionOf,
    placementChanged,
    everyCommands: cluster.systemSnapshotCommands,
    clock,
    log,
  });
  state.systemCaughtUp = true;
  const replica = systemState.replica;
  replicaStarted.resolve(replica);
  const periodic = new PeriodicSnapshots({
    node,
    jsm,
    snapshots: snapshotStore,
    restore: {
      js,
      passivateTenant,
      imports: await state.imports(),
      tenantExists,
      log,
    },
    clock,
    policy: cluster.snapshots,
    log,
    purged: (partition, snapshot) =>
      deleteCoveredImports(
        { imports: () => state.imports(), ledger: state.ledger, log },
        partition,
        snapshot,
      ),
  });
  // Appends count towards snapshots, and erasures and deletions are answered once compacted.
  state.periodic = periodic;
  // The system state is here now: the tenants of partitions claimed meanwhile start their connectors.
  placementChanged(store.listTenants().map((t) => t.tenant_id));
  // Partitions served before it existed count from now.
  for (const partition of node.ownership.owned())
    periodic.serving(partition, true, compactionOwed.delete(partition));
  periodic.start();
  // A tenant created on another node a moment ago: catch up on the system stream once.
  const knowTenant = async (tenantId: string) => {
    if (store.getTenant(tenantId) === undefined) await replica.catchUp();
  };
  const intake = new Intake(
    node,
    js,
    jsm,
    async (request) => {
      const tenantId = tenantOfRequest(request);
      if (tenantId) await knowTenant(tenantId);
      return localApp(request);
    },
    log,
    undefined,
    async (request, target, body) => {
      await knowTenant(target.tenantId);
      return checkAtEdge(runtime.internals.deps, request, target, body);
    },
  );
  // Published only once its stream exists: partitions claimed meanwhile start consuming below.
  await intake.start();
  state.intake = intake;
  // Partitions claimed before the intake existed start consuming now.
  for (const partition of node.ownership.owned()) void intake.startPartition(partition);
  const app = (request: Request) =>
    withClusterView(request, localApp(request), () => ({ ...node.view(), system: systemState.view() }));
  const router = new ClusterRouter(node, app, {
    ...DEFAULT_ROUTER_OPTIONS,
    beforeServe: knowTenant,
    intake,
    now: () => clock.now(),
    telemetry: runtime.internals.deps.telemetry,
  });
  router.listen();
  // The dashboard's figures of other nodes' tenants are asked through it (cluster-ports.ts).
  state.router = router;
  route(router);
  // Published with the heartbeat: the others redirect here what they cannot forward over NATS.
  await node.membership.advertise(cluster.advertiseUrl ?? derivedAdvertiseUrl(config.host, server.port ?? 0));
  return {
    node,
    url: `http://${config.host}:${server.port}`,
    stop: async () => {
      const deps = runtime.internals.deps;
      deps.shutdown.begin();
      closeMemoryStreams(deps);
      const drained = await drainRequests(server, config.shutdownTimeoutMs, clock);
      await server.stop(drained.cut > 0);
      router.stop();
      intake.stop();
      periodic.stop();
      systemState.stop();
      await node.stop();
      // Out of the cluster: what the actors still write while they drain stays local (removed below).
      state.leftCluster = true;
      await runtime.stop();
      // Served elsewhere from now on: a stopped node keeps no tenant data.
      await localCopies.removeAllStopped();
      dataDirLock.release();
      return drained;
    },
  };
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
