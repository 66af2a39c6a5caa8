/**
 * Serving a runtime as a cluster node: joins the cluster, replicates the system state, restores
 * partitions it claims, consumes their webhook intake, answers forwarded requests, and listens with
 * the router in front of the app. `/healthz` gains the cluster view (node, owned partitions, live
 * nodes, lease holders).
 *
 * The runtime is composed for it first (`createClusterRuntime`): cluster mode's ports
 * (cluster-ports.ts: vault writes and imports logged to the partition changelog, placement,
 * erasure follow-ups, figures) are passed in then and never replaced; they read a NodeState
 * (node-state.ts) whose parts `serveClusterNode` starts in stages, each once (node-stages.ts).
 */
import { Unavailable } from "../errors/domain-errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId } from "../http/request-id.ts";
import { bindOrRefuse, serverOptions } from "../http/server-options.ts";
import { type DrainReport, drainRequests } from "../http/shutdown-gate.ts";
import { configOf, createRuntime, type MemoryRuntime, type RuntimeOptions } from "../lib.ts";
import { closeMemoryStreams } from "../memory/open-streams.ts";
import { systemClock } from "../runtime/clock.ts";
import { builtHolding, type DataDirLock, lockDataDir } from "../vault/data-dir-lock.ts";
import { clusterPorts } from "./cluster-ports.ts";
import { type ClusterConfig, derivedAdvertiseUrl } from "./config.ts";
import type { ClusterNode } from "./node.ts";
import {
  joinCluster,
  nodeContext,
  replicateSystem,
  startIntake,
  startRouter,
  startSnapshots,
} from "./node-stages.ts";
import { NodeState } from "./node-state.ts";
import type { ClusterRouter } from "./router.ts";

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
  const { config } = clustered.runtime.internals.stores;
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
  const { config, clock } = runtime.internals.stores;
  const ctx = nodeContext(runtime, state, cluster, log);
  const joined = await joinCluster(ctx);
  const systemState = await replicateSystem(ctx, joined);
  const periodic = await startSnapshots(ctx, joined);
  const intake = await startIntake(ctx, joined, systemState);
  const router = startRouter(ctx, joined, systemState, intake);
  route(router);
  const { node, localCopies } = joined;
  // Published with the heartbeat: the others redirect here what they cannot forward over NATS.
  await node.membership.advertise(cluster.advertiseUrl ?? derivedAdvertiseUrl(config.host, server.port ?? 0));
  return {
    node,
    url: `http://${config.host}:${server.port}`,
    stop: async () => {
      const { services } = runtime.internals;
      services.shutdown.begin();
      closeMemoryStreams(services);
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
