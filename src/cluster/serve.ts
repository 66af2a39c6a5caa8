/**
 * Serving a runtime as a cluster node: joins the cluster, answers forwarded requests, and listens
 * with the router in front of the app. `/healthz` gains the cluster view (node, owned partitions,
 * live nodes, lease holders).
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { MemoryRuntime } from "../lib.ts";
import { encodeWriteSet, logVaultWrites } from "./changelog.ts";
import type { ClusterConfig } from "./config.ts";
import { Fenced } from "./fence.ts";
import { ClusterNode, type ClusterView } from "./node.ts";
import { partitionOf } from "./partition.ts";
import { restorePartition } from "./restore.ts";
import { ClusterRouter, DEFAULT_ROUTER_OPTIONS } from "./router.ts";
import { SystemReplica } from "./system-replica.ts";

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
  const { config } = runtime.internals.deps;
  const { store } = runtime.internals.deps;
  // Every vault write of an owned tenant goes to its partition's changelog before it resolves.
  let node: ClusterNode | undefined;
  const unhook = logVaultWrites(async (tenantId, set) => {
    if (!node) throw new Fenced(partitionOf(tenantId));
    await node.appendWrite(tenantId, { type: "write", tenant_id: tenantId, set: encodeWriteSet(set) });
  });
  node = await ClusterNode.start(cluster, log, async (partition, epoch) => {
    const report = await restorePartition(
      {
        js: jetstream(node!.nc),
        dataDir: config.dataDir,
        passivateTenant: runtime.internals.passivateTenant,
      },
      partition,
      epoch,
    );
    if (report.applied > 0)
      log(`[cluster] partition ${partition}: replayed ${report.applied} writes of ${report.tenants} tenants`);
  });
  const replica = new SystemReplica(store, jetstream(node.nc), await jetstreamManager(node.nc), log);
  await replica.start();
  const app = (request: Request) => withClusterView(request, runtime.app.handle(request), () => node.view());
  const router = new ClusterRouter(node, app, {
    ...DEFAULT_ROUTER_OPTIONS,
    // A tenant created on another node a moment ago: catch up on the system stream once.
    beforeServe: async (tenantId) => {
      if (store.getTenant(tenantId) === undefined) await replica.catchUp();
    },
  });
  router.listen();
  // As in lib.ts: Bun's cap above the API limit so oversize bodies get the API's 413.
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    maxRequestBodySize: Math.max(config.bodyLimitBytes * 4, config.importLimitBytes + 1),
    fetch: (request) => router.handle(request),
  });
  return {
    node,
    url: `http://${config.host}:${server.port}`,
    stop: async () => {
      await server.stop();
      router.stop();
      replica.stop();
      await node!.stop();
      unhook();
      await runtime.stop();
    },
  };
}

/** Adds `cluster` to the `/healthz` answer (declared optional in its schema). */
async function withClusterView(
  request: Request,
  answer: Response | Promise<Response>,
  view: () => ClusterView,
): Promise<Response> {
  const response = await answer;
  if (request.method !== "GET" || new URL(request.url).pathname !== "/healthz" || response.status !== 200)
    return response;
  const body = { ...((await response.json()) as Record<string, unknown>), cluster: view() };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: 200, headers });
}
