/**
 * Two runtimes in one process (ARCHITECTURE, "Ports, not patches"): a plain single-node runtime
 * and a cluster node, side by side. The changelog and the import log are cluster mode's storage
 * port, given to the cluster node's own runtime when it is composed (src/cluster/cluster-ports.ts),
 * so the single-node runtime's writes and imports never reach the cluster's changelog, while the
 * cluster node's writes do.
 *
 * Before the ports, cluster mode replaced `TenantVault.prototype.write` for the whole process and
 * installed the import seal as a module-global hook: the single-node runtime's write and import
 * went through them too, and were appended to the changelog of the cluster node (which serves
 * every partition here), so this test failed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { clusterConfigOf } from "../../src/cluster/config.ts";
import { LOG_STREAM } from "../../src/cluster/names.ts";
import { PARTITIONS } from "../../src/cluster/partition.ts";
import { type ClusterServer, createClusterRuntime, serveClusterNode } from "../../src/cluster/serve.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

let nats: NatsServer;
let nc: NatsConnection;
let single: Harness;
let clusterDir: string;
let node: ClusterServer;
/** The cluster node's log lines, shown when its start fails. */
const nodeLog: string[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  single = await startHarness();
  clusterDir = mkdtempSync(join(tmpdir(), "mrt-two-runtimes-"));
  const env = {
    MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
    MEMORY_RUNTIME_DATA_DIR: clusterDir,
    // The single-node runtime it is compared with runs the harness's embedder.
    MEMORY_RUNTIME_EMBEDDER: "hash",
    MEMORY_RUNTIME_CLUSTER_URL: nats.url,
    MEMORY_RUNTIME_NODE_ID: "only-node",
    PORT: "0",
  };
  const log = (line: string) => void nodeLog.push(line);
  const clustered = createClusterRuntime({ env, config: loadConfig(env), log });
  node = await serveClusterNode(clustered, clusterConfigOf(env)!, log);
  // The only node serves every partition once it has claimed them.
  await pollUntil(
    () => node.node.view().partitions.length,
    (served) => served === PARTITIONS,
    { timeoutMs: 20_000, intervalMs: 50 },
  ).catch((error) => {
    throw new Error(`${error.message}\n${nodeLog.slice(-20).join("\n")}`);
  });
}, 60_000);

afterAll(async () => {
  await node?.stop();
  await single?.close();
  await nc?.close();
  await nats?.stop();
  if (clusterDir) rmSync(clusterDir, { recursive: true, force: true });
});

/** The text of every changelog record (parts decoded). */
async function changelogText(): Promise<string[]> {
  const texts: string[] = [];
  const messages = (await (await jetstreamManager(nc)).streams.info(LOG_STREAM)).state.messages;
  if (messages === 0) return texts;
  const consumer = await jetstream(nc).consumers.get(LOG_STREAM, { deliver_policy: DeliverPolicy.All });
  for (;;) {
    const msg = await consumer.next({ expires: 2000 });
    if (!msg) break;
    const record = msg.json<{ type: string; data?: string }>();
    texts.push(record.type === "part" ? Buffer.from(record.data ?? "", "base64").toString() : msg.string());
    if (msg.info.pending === 0) break;
  }
  return texts;
}

const mentioning = (texts: string[], needle: string) => texts.filter((text) => text.includes(needle));

describe("a single-node runtime and a cluster node in one process", () => {
  test("each runtime's writes go where its own ports send them: the single node's never to the changelog", async () => {
    const suffix = crypto.randomUUID();
    const singleFact = `written on the single node ${suffix}`;
    const clusterFact = `written on the cluster node ${suffix}`;

    const local = await single.createTenant();
    const wroteLocally = await single.json("POST", "/memory/facts", {
      token: local.token,
      body: { content: singleFact },
    });
    expect(wroteLocally.status).toBe(201);

    const admin = await adminTokenFor(TEST_SECRET);
    const created = await httpCall(node.url, "POST", "/admin/tenants", {
      token: admin,
      body: { name: `Clustered ${suffix}` },
    });
    expect(created.status).toBe(201);
    const wroteInCluster = await httpCall(node.url, "POST", "/memory/facts", {
      token: created.body.token,
      body: { content: clusterFact },
    });
    expect(wroteInCluster.status).toBe(201);

    // Both writes are acknowledged, and a cluster write is appended before it is acknowledged.
    const log = await changelogText();
    expect(mentioning(log, clusterFact)).toHaveLength(1);
    expect(mentioning(log, created.body.tenant_id).length).toBeGreaterThan(0);
    expect(mentioning(log, singleFact)).toEqual([]);
    expect(mentioning(log, local.tenant_id)).toEqual([]);
    // Both are read back where they were written.
    const readLocally = await single.json("GET", "/memory/facts", { token: local.token });
    expect(readLocally.body.items.map((e: { content: string }) => e.content)).toEqual([singleFact]);
    const readInCluster = await httpCall(node.url, "GET", "/memory/facts", { token: created.body.token });
    expect(readInCluster.body.items.map((e: { content: string }) => e.content)).toEqual([clusterFact]);
  });

  test("an import on the single node is sealed by its own (empty) seal: nothing of it reaches the changelog", async () => {
    const source = await single.createTenant();
    const wrote = await single.json("POST", "/memory/facts", {
      token: source.token,
      body: { content: `exported from the single node ${crypto.randomUUID()}` },
    });
    expect(wrote.status).toBe(201);
    const exported = await single.call("GET", `/admin/tenants/${source.tenant_id}/export`, {
      token: single.adminToken,
    });
    expect(exported.status).toBe(200);
    const target = await single.createTenant();
    const imported = await single.json("POST", `/admin/tenants/${target.tenant_id}/import`, {
      token: single.adminToken,
      raw: await exported.text(),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status).toBe(200);
    expect(imported.body.imported.entries).toBe(1);

    const log = await changelogText();
    expect(mentioning(log, target.tenant_id)).toEqual([]);
    expect(mentioning(log, source.tenant_id)).toEqual([]);
  });
});
