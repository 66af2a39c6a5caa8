/**
 * A real cluster on loopback for the cluster suites: one nats-server with JetStream and N runtime
 * processes (`bun run src/index.ts` with MEMORY_RUNTIME_CLUSTER_URL), each with its own data dir.
 */
import { afterAll, beforeAll } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { PARTITIONS, partitionOf } from "../../src/cluster/partition.ts";
import { type NatsServer, startNatsServer } from "./nats-server.ts";
import { pollUntil } from "./poll.ts";
import { httpCall, killHard, type ServerProcess, startServerProcess } from "./server-process.ts";

export interface ClusterNodeProcess {
  nodeId: string;
  /** Its log is `<root>/<label>.log`. */
  label: string;
  server: ServerProcess;
  dataDir: string;
}

export interface TestCluster {
  nats: NatsServer;
  nodes: ClusterNodeProcess[];
  secret: string;
  root: string;
  /** Adds `NAME_<tenant>=value` lines to the nodes' shared secrets file and reloads it on every node. */
  setSecrets(tenantId: string, secrets: Record<string, string>, adminToken: string): Promise<void>;
  /** Starts (or restarts, keeping its data dir) the node of this id. */
  startNode(nodeId: string): Promise<ClusterNodeProcess>;
  stop(): Promise<void>;
}

/** `env`: extra variables for every node (the soak turns the per-tenant rate limits off). */
export async function startTestCluster(
  nodeIds: string[],
  secret: string,
  env: Record<string, string> = {},
  /** The nodes' program (server-process.ts `entry`): test/fakes/tiered-server.ts fakes the sentence model. */
  entry?: string,
): Promise<TestCluster> {
  const root = mkdtempSync(join(tmpdir(), "mr-cluster-"));
  const nats = await startNatsServer();
  const nodes: ClusterNodeProcess[] = [];
  const secretsFile = join(root, "secrets.env");
  writeFileSync(secretsFile, "", { mode: 0o600 });
  const startNode = async (nodeId: string) => {
    const dataDir = join(root, nodeId);
    mkdirSync(dataDir, { recursive: true });
    const label = `${nodeId}-${Date.now()}`;
    const server = await startServerProcess({
      dataDir,
      secret,
      logDir: root,
      label,
      entry,
      env: {
        MEMORY_RUNTIME_CLUSTER_URL: nats.url,
        MEMORY_RUNTIME_NODE_ID: nodeId,
        MEMORY_RUNTIME_SECRETS_FILE: secretsFile,
        ...env,
      },
    });
    const node = { nodeId, label, server, dataDir };
    const previous = nodes.findIndex((n) => n.nodeId === nodeId);
    if (previous >= 0) nodes[previous] = node;
    else nodes.push(node);
    return node;
  };
  for (const id of nodeIds) await startNode(id);
  return {
    nats,
    nodes,
    secret,
    root,
    startNode,
    setSecrets: async (tenantId, secrets, adminToken) => {
      for (const [name, value] of Object.entries(secrets))
        appendFileSync(secretsFile, `${name}_${tenantId}=${value}\n`);
      for (const node of nodes) {
        const reloaded = await httpCall(node.server.base, "POST", "/admin/reload", { token: adminToken });
        if (reloaded.body?.secrets?.reloaded !== true)
          throw new Error(`reload refused: ${JSON.stringify(reloaded.body)}`);
      }
    },
    stop: async () => {
      await Promise.all(nodes.map((n) => killHard(n.server)));
      await nats.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The cluster view in a node's `/healthz`. */
export async function clusterView(node: ClusterNodeProcess) {
  const answer = await httpCall(node.server.base, "GET", "/healthz");
  return answer.body.cluster as {
    node_id: string;
    partitions: number[];
    nodes: string[];
    owners: Record<string, string>;
  };
}

/** Waits until the given nodes together serve every partition exactly once, each serving some, each seeing all nodes. */
export async function waitForSettled(nodes: ClusterNodeProcess[], timeoutMs = 15_000): Promise<void> {
  await pollUntil(
    async () => Promise.all(nodes.map((n) => clusterView(n).catch(() => undefined))),
    (views) => {
      if (views.some((v) => v === undefined || v.nodes.length !== nodes.length)) return false;
      // Rendezvous gives every node a share: one serving nothing has not got its partitions yet.
      if (views.some((v) => v!.partitions.length === 0)) return false;
      const served = views.flatMap((v) => v!.partitions);
      return served.length === PARTITIONS && new Set(served).size === PARTITIONS;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** A tenant created through `base`, its token and the node serving its partition (and one that does not). */
export interface PlacedTenant {
  id: string;
  token: string;
  owner: ClusterNodeProcess;
  other: ClusterNodeProcess;
}

/** Creates a tenant named `name` through the first node and says which node owns it. */
export async function createPlacedTenant(
  cluster: TestCluster,
  admin: string,
  name: string,
): Promise<PlacedTenant> {
  const created = await httpCall(cluster.nodes[0]!.server.base, "POST", "/admin/tenants", {
    token: admin,
    body: { name },
  });
  if (created.status !== 201) throw new Error(`tenant creation answered ${created.status}`);
  return placed(cluster, created.body.tenant_id, created.body.token);
}

/** Creates tenants (`<label> <n>`) through `base` until one lands on a partition `ownerId` serves. */
export async function createTenantOwnedBy(
  cluster: TestCluster,
  ownerId: string,
  base: string,
  admin: string,
  label: string,
): Promise<PlacedTenant> {
  const owners = (await clusterView(cluster.nodes[0]!)).owners;
  for (let i = 0; i < 200; i++) {
    const created = await httpCall(base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: `${label} ${i}` },
    });
    if (created.status !== 201) throw new Error(`tenant creation answered ${created.status}`);
    if (owners[partitionOf(created.body.tenant_id)] === ownerId)
      return placed(cluster, created.body.tenant_id, created.body.token);
  }
  throw new Error(`no tenant of ${ownerId} in 200 creations`);
}

/** The node serving a tenant's partition now, and one that does not (as the first node sees them). */
export async function placementOf(
  cluster: TestCluster,
  tenantId: string,
): Promise<Pick<PlacedTenant, "owner" | "other">> {
  const ownerId = (await clusterView(cluster.nodes[0]!)).owners[partitionOf(tenantId)];
  const owner = cluster.nodes.find((n) => n.nodeId === ownerId);
  if (!owner) throw new Error(`no node serves the partition of ${tenantId}`);
  return { owner, other: cluster.nodes.find((n) => n !== owner)! };
}

async function placed(cluster: TestCluster, id: string, token: string): Promise<PlacedTenant> {
  return { id, token, ...(await placementOf(cluster, id)) };
}

/** A suite's cluster and a NATS client on its server, set before the suite's first test. */
export interface ClusterSuite {
  cluster: TestCluster;
  nc: NatsConnection;
}

/**
 * Starts a cluster of `nodeIds` (and a NATS client on it) before the enclosing describe's tests,
 * once every partition is served; stops both after them.
 */
export function useTestCluster(
  nodeIds: string[],
  secret: string,
  env: Record<string, string> = {},
): ClusterSuite {
  const suite = {} as ClusterSuite;
  beforeAll(async () => {
    suite.cluster = await startTestCluster(nodeIds, secret, env);
    suite.nc = await connect({ servers: suite.cluster.nats.url });
    await waitForSettled(suite.cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await suite.nc?.close();
    await suite.cluster?.stop();
  });
  return suite;
}
