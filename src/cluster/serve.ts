/**
 * Serving a runtime as a cluster node: joins the cluster, replicates the system state, logs vault
 * writes to the partition changelog, restores partitions it claims, consumes their webhook intake,
 * answers forwarded requests, and listens with the router in front of the app. `/healthz` gains
 * the cluster view (node, owned partitions, live nodes, lease holders).
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { serverOptions } from "../http/server-options.ts";
import type { MemoryRuntime } from "../lib.ts";
import { encodeWriteSet, logVaultWrites } from "./changelog.ts";
import { type ClusterConfig, derivedAdvertiseUrl } from "./config.ts";
import { compactAfterErasure } from "./erasure.ts";
import { Fenced } from "./fence.ts";
import { ImportLedger } from "./import-ledger.ts";
import { deleteCoveredImports, logImports } from "./import-log.ts";
import { ImportObjects } from "./import-objects.ts";
import { Intake } from "./intake.ts";
import { checkAtEdge } from "./intake-edge.ts";
import { LocalCopies } from "./local-copies.ts";
import { ClusterNode, type ClusterView } from "./node.ts";
import { partitionOf } from "./partition.ts";
import { PeriodicSnapshots } from "./periodic-snapshots.ts";
import { figuresThroughRouter } from "./remote-figures.ts";
import { tenantOfRequest } from "./request-tenant.ts";
import { restorePartition } from "./restore.ts";
import { ClusterRouter, DEFAULT_ROUTER_OPTIONS } from "./router.ts";
import { Snapshots } from "./snapshots.ts";
import type { SystemReplica } from "./system-replica.ts";
import { type SystemState, type SystemStateView, startSystemState } from "./system-state.ts";

export interface ClusterServer {
  node: ClusterNode;
  url: string;
  /** Releases the leases (so the others take over at once), then stops the runtime. */
  stop(): Promise<void>;
}

export async function serveClusterNode(
  runtime: MemoryRuntime,
  cluster: ClusterConfig,
  log: (line: string) => void = console.error,
): Promise<ClusterServer> {
  const { config, store } = runtime.internals.deps;
  // Connectors, outbound workers and the bridge run for the tenants of the partitions served here,
  // once the system state is caught up (the local store may be behind until then).
  let systemState: SystemState | undefined;
  runtime.internals.followPlacement(
    (tenantId) => systemState !== undefined && (node?.ownership.owns(partitionOf(tenantId)) ?? false),
  );
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
  // Bound once the node is up; the hooks below run only after that.
  let node: ClusterNode | undefined;
  let intake: Intake | undefined;
  let snapshots: Promise<Snapshots> | undefined;
  let periodic: PeriodicSnapshots | undefined;
  // Partitions whose takeover found a compaction owed (restore.ts): compacted once served.
  const compactionOwed = new Set<number>();
  let importObjects: Promise<ImportObjects> | undefined;
  const imports = () => (importObjects ??= ImportObjects.open(node!.nc));
  const ledger = new ImportLedger();
  const replicaStarted = Promise.withResolvers<SystemReplica>();
  // The system state as of now (a deleted tenant's records are not replayed).
  const tenantExists = async (tenantId: string) => {
    const replica = await replicaStarted.promise;
    if (store.getTenant(tenantId) === undefined) await replica.catchUp();
    return store.getTenant(tenantId) !== undefined;
  };
  // A tenant not served here is neither written (refused before its local commit) nor opened.
  const notServedHere = (tenantId: string) => {
    const partition = partitionOf(tenantId);
    return node?.ownership.owns(partition) ? undefined : new Fenced(partition);
  };
  runtime.internals.guardVaults(notServedHere);
  // Every vault write of an owned tenant goes to its partition's changelog before it resolves.
  const unhook = logVaultWrites(async (tenantId, set) => {
    const record = { type: "write", tenant_id: tenantId, set: encodeWriteSet(set) };
    const seq = await node!.appendWrite(tenantId, record);
    periodic?.appended(partitionOf(tenantId), seq);
  }, notServedHere);
  // A claimed partition's data: whatever this node held of it dropped, the snapshot and the log tail.
  const restore = async (partition: number, epoch: number): Promise<void> => {
    snapshots ??= Snapshots.open(node!.nc);
    const restoreDeps = {
      js: jetstream(node!.nc),
      dataDir: config.dataDir,
      passivateTenant: runtime.internals.passivateTenant,
      snapshots: await snapshots,
      imports: await imports(),
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
    passivateTenant: runtime.internals.passivateTenant,
    stopRunning: (partition) => runtime.internals.placementChanged(tenantsOf(partition)),
    serves: (partition) => node?.ownership.owns(partition) ?? false,
    clock: runtime.internals.deps.clock,
    log,
  });
  // What it held before it started (killed) is never read again: a claim rebuilds it.
  void localCopies.removeAll();
  node = await ClusterNode.start(cluster, log, {
    onClaimed: (partition, epoch) => localCopies.serially(partition, () => restore(partition, epoch)),
    onServing: (partition, serving) => {
      periodic?.serving(partition, serving, serving && compactionOwed.delete(partition));
      if (!serving) ledger.forget(partition);
      placementChanged(tenantsOf(partition));
      if (!intake) return;
      if (serving)
        void intake
          .startPartition(partition)
          .catch((error) => log(`[cluster] intake ${partition}: ${error}`));
      else intake.stopPartition(partition);
    },
    onDropped: (partition) => void localCopies.remove(partition),
  });
  // Imports completed here go to the changelog before they are answered.
  const unhookImports = logImports({
    node,
    imports,
    ledger,
    appended: (partition, seq) => periodic?.appended(partition, seq),
    log,
  });
  const js = jetstream(node.nc);
  const jsm = await jetstreamManager(node.nc);
  systemState = await startSystemState({
    store,
    nc: node.nc,
    js,
    jsm,
    serves: (partition) => node!.ownership.owns(partition),
    partitionOf,
    placementChanged,
    everyCommands: cluster.systemSnapshotCommands,
    clock: runtime.internals.deps.clock,
    log,
  });
  const replica = systemState.replica;
  replicaStarted.resolve(replica);
  periodic = new PeriodicSnapshots({
    node,
    jsm,
    snapshots: () => (snapshots ??= Snapshots.open(node!.nc)),
    restore: {
      js,
      passivateTenant: runtime.internals.passivateTenant,
      imports: await imports(),
      tenantExists,
      log,
    },
    clock: runtime.internals.deps.clock,
    policy: cluster.snapshots,
    log,
    purged: (partition, snapshot) => deleteCoveredImports({ imports, ledger, log }, partition, snapshot),
  });
  // The system state is here now: the tenants of partitions claimed meanwhile start their connectors.
  placementChanged(store.listTenants().map((t) => t.tenant_id));
  // Partitions served before it existed count from now.
  for (const partition of node.ownership.owned())
    periodic.serving(partition, true, compactionOwed.delete(partition));
  // Erasures and deletions are answered once their partition is compacted.
  compactAfterErasure(runtime.internals.deps, periodic, () => intake?.removalsSettled() ?? Promise.resolve());
  periodic.start();
  // A tenant created on another node a moment ago: catch up on the system stream once.
  const knowTenant = async (tenantId: string) => {
    if (store.getTenant(tenantId) === undefined) await replica.catchUp();
  };
  const created = new Intake(
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
  await created.start();
  intake = created;
  // Partitions claimed before the intake existed start consuming now.
  for (const partition of node.ownership.owned()) void intake.startPartition(partition);
  const app = (request: Request) =>
    withClusterView(request, localApp(request), () => ({ ...node!.view(), system: systemState!.view() }));
  const router = new ClusterRouter(node, app, {
    ...DEFAULT_ROUTER_OPTIONS,
    beforeServe: knowTenant,
    intake,
    now: () => runtime.internals.deps.clock.now(),
  });
  router.listen();
  // The dashboard (served by any node) reads each tenant's figures from the node serving it.
  runtime.internals.deps.tenantFigures = figuresThroughRouter(
    (request) => router.handle(request),
    runtime.internals.deps.clock,
  );
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    ...serverOptions(config),
    fetch: (request) => router.handle(request),
  });
  // Published with the heartbeat: the others redirect here what they cannot forward over NATS.
  await node.membership.advertise(cluster.advertiseUrl ?? derivedAdvertiseUrl(config.host, server.port ?? 0));
  return {
    node,
    url: `http://${config.host}:${server.port}`,
    stop: async () => {
      await server.stop();
      router.stop();
      intake?.stop();
      periodic?.stop();
      systemState.stop();
      await node!.stop();
      unhook();
      unhookImports();
      await runtime.stop();
      // Served elsewhere from now on: a stopped node keeps no tenant data.
      await localCopies.removeAllStopped();
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
