/**
 * Partition ownership with three in-process nodes on one real nats-server: every partition has
 * exactly one owner, a node leaving hands its partitions to survivors, a node that cannot renew
 * stops serving, and a forced second claimant fences the first one's writes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type ClusterTimings, DEFAULT_SNAPSHOT_POLICY } from "../../src/cluster/config.ts";
import { Fenced } from "../../src/cluster/fence.ts";
import { ClusterNode } from "../../src/cluster/node.ts";
import { PARTITIONS, partitionOf } from "../../src/cluster/partition.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";
import { pollUntil } from "../helpers/poll.ts";

/** Short timings keep the suite quick; the ratios are the production ones (serve < stale). */
const FAST: ClusterTimings = { heartbeatMs: 100, liveMs: 400, tickMs: 100, serveMs: 300, staleMs: 500 };

let nats: NatsServer;
const started: ClusterNode[] = [];
const quiet = () => {};

async function node(nodeId: string): Promise<ClusterNode> {
  const n = await ClusterNode.start(
    { servers: [nats.url], nodeId, timings: FAST, snapshots: DEFAULT_SNAPSHOT_POLICY },
    quiet,
  );
  started.push(n);
  return n;
}

/** Partition → owners claiming to serve it, over the given nodes. */
function servedBy(nodes: ClusterNode[]): string[][] {
  return Array.from({ length: PARTITIONS }, (_, p) =>
    nodes.filter((n) => n.ownership.owns(p)).map((n) => n.nodeId),
  );
}

const exactlyOnce = (nodes: ClusterNode[]) => servedBy(nodes).every((owners) => owners.length === 1);

describe("partition ownership", () => {
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((n) => n.stop()));
  });
  afterAll(async () => {
    await nats.stop();
  });

  test("three nodes: every partition is served by exactly one node, the same one every node names", async () => {
    const nodes = [await node("a1"), await node("a2"), await node("a3")];
    await pollUntil(() => exactlyOnce(nodes), Boolean, { timeoutMs: 5000 });
    for (let p = 0; p < PARTITIONS; p++) {
      const owner = nodes.find((n) => n.ownership.owns(p))!.nodeId;
      for (const n of nodes)
        await pollUntil(
          () => n.ownership.ownerOf(p),
          (o) => o === owner,
        );
    }
    for (const n of nodes) expect(n.view().partitions.length).toBeGreaterThan(10);
  });

  test("a node stopping hands each of its partitions to exactly one survivor", async () => {
    const nodes = [await node("b1"), await node("b2"), await node("b3")];
    await pollUntil(() => exactlyOnce(nodes), Boolean, { timeoutMs: 5000 });
    const leaving = nodes[1]!;
    const itsPartitions = leaving.view().partitions;
    expect(itsPartitions.length).toBeGreaterThan(0);
    await leaving.stop();
    started.splice(started.indexOf(leaving), 1);
    const survivors = [nodes[0]!, nodes[2]!];
    await pollUntil(() => exactlyOnce(survivors), Boolean, { timeoutMs: 5000 });
  });

  test("a rejoining node gets its partitions back (rebalance)", async () => {
    const first = [await node("c1"), await node("c2")];
    await pollUntil(() => exactlyOnce(first), Boolean, { timeoutMs: 5000 });
    const joiner = await node("c3");
    const all = [...first, joiner];
    await pollUntil(() => exactlyOnce(all) && joiner.view().partitions.length > 10, Boolean, {
      timeoutMs: 5000,
    });
  });

  test("a forced second claimant fences the owner: its next write is refused and it stops serving", async () => {
    const owner = await node("d1");
    await pollUntil(
      () => owner.view().partitions.length,
      (n) => n === PARTITIONS,
      { timeoutMs: 5000 },
    );
    const tenant = "01JB0000000000000000000000";
    const partition = partitionOf(tenant);
    expect(await owner.appendWrite(tenant, { type: "write", path: "/memory/facts" })).toBeGreaterThan(0);
    // A rogue node claims the same partition behind the lease's back (as issue 4320 would allow).
    const rogue = await node("d2");
    const rogueEpoch = await rogue.log.claim(partition);
    expect(rogueEpoch).toBeGreaterThan(0);
    await expect(owner.appendWrite(tenant, { type: "write", path: "/memory/facts" })).rejects.toBeInstanceOf(
      Fenced,
    );
    expect(owner.ownership.owns(partition)).toBe(false);
    // The rogue's own appends under its epoch go through: one writer per partition at a time.
    expect(await rogue.log.append(partition, rogueEpoch, { type: "write" })).toBeGreaterThan(rogueEpoch);
  });

  test("a node cut from NATS stops serving within its serve window", async () => {
    const owner = await node("e1");
    await pollUntil(
      () => owner.view().partitions.length,
      (n) => n === PARTITIONS,
      { timeoutMs: 5000 },
    );
    await owner.nc.close();
    started.splice(started.indexOf(owner), 1);
    await pollUntil(
      () => owner.view().partitions.length,
      (n) => n === 0,
      { timeoutMs: FAST.serveMs + 500 },
    );
  });
});
