/**
 * Two claimants with real processes: a runtime node owns a partition when a rogue claimant appends
 * its own claim to the partition's changelog behind the lease's back (what nats-server issue 4320
 * could let a second KV claimant do). The owner's next write is refused (503), not merged: once the
 * owner claims the partition again, its vault is rebuilt from the log and holds every acknowledged
 * write and not the refused one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { PartitionLog } from "../../src/cluster/fence.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import {
  clusterView,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-fencing-secret-of-at-least-32-bytes!!";
let cluster: TestCluster;
let nc: NatsConnection;

describe("cluster: a forced second claimant (real runtime process)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["f1"], SECRET);
    await waitForSettled(cluster.nodes);
    nc = await connect({ servers: cluster.nats.url });
  }, 60_000);
  afterAll(async () => {
    await nc.close();
    await cluster.stop();
  });

  test("the owner's write after the rogue claim is refused, and not in its rebuilt vault", async () => {
    const base = cluster.nodes[0]!.server.base;
    const admin = await adminTokenFor(SECRET);
    const created = await httpCall(base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Fenced Co" },
    });
    const { tenant_id: tenantId, token } = created.body;
    const before = await httpCall(base, "POST", "/memory/facts", {
      token,
      body: { content: "acknowledged" },
    });
    expect(before.status).toBe(201);

    const rogue = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "rogue");
    const partition = partitionOf(tenantId);
    expect(await rogue.claim(partition)).toBeGreaterThan(0);

    const refused = await httpCall(base, "POST", "/memory/facts", { token, body: { content: "refused" } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect((await clusterView(cluster.nodes[0]!)).partitions).not.toContain(partition);

    // The owner claims again after its own lease goes stale (4 s), rebuilding the vault from the log.
    await pollUntil(
      async () => (await clusterView(cluster.nodes[0]!)).partitions.includes(partition),
      Boolean,
      { timeoutMs: 15_000, intervalMs: 100 },
    );
    const listed = await httpCall(base, "GET", "/memory/facts", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((e: { content: string }) => e.content)).toEqual(["acknowledged"]);
  }, 60_000);
});
