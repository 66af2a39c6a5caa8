/**
 * Periodic snapshots with real processes: the owner of a partition snapshots it after N changelog
 * writes (here 5) and purges the log below the snapshot; a `kill -9` of the owner afterwards still
 * restores every acknowledged write exactly once (the snapshot, then the log tail after it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { LOG_STREAM, logSubject } from "../../src/cluster/names.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-snapshots-secret-of-at-least-32-bytes";
let cluster: TestCluster;
let nc: NatsConnection;

/** The sequence of the first message left on the partition's log subject. */
async function firstSeqOnSubject(partition: number): Promise<number | undefined> {
  const consumer = await jetstream(nc).consumers.get(LOG_STREAM, { filter_subjects: logSubject(partition) });
  const first = await consumer.next({ expires: 2000 });
  return first?.seq;
}

/** The sequence of the latest periodic snapshot of `partition` the node's log reports. */
function latestPeriodicSnapshot(node: ClusterNodeProcess, partition: number): number | undefined {
  const log = readFileSync(join(cluster.root, `${node.label}.log`), "utf8");
  const pattern = new RegExp(`partition ${partition}: periodic snapshot at (\\d+)`, "g");
  const seqs = [...log.matchAll(pattern)].map((m) => Number(m[1]));
  return seqs.at(-1);
}

describe("cluster: periodic snapshots and log purge (2 nodes)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["s1", "s2"], SECRET, { MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: "5" });
    nc = await connect({ servers: cluster.nats.url });
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster.stop();
  });

  test("after a snapshot and its purge, a takeover restores every acknowledged write exactly once", async () => {
    const admin = await adminTokenFor(SECRET);
    const [s1] = cluster.nodes as [ClusterNodeProcess];
    const created = await httpCall(s1.server.base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Snapshotted Co" },
    });
    expect(created.status).toBe(201);
    const tenantId = created.body.tenant_id as string;
    const token = created.body.token as string;
    const partition = partitionOf(tenantId);
    const ownerId = (await clusterView(s1)).owners[partition];
    const owner = cluster.nodes.find((n) => n.nodeId === ownerId)!;
    const survivor = cluster.nodes.find((n) => n.nodeId !== ownerId)!;
    expect(owner).toBeDefined();

    const acked = new Map<string, string>();
    const writeFacts = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const content = `snapshotted fact ${i}`;
        const answer = await httpCall(survivor.server.base, "POST", "/memory/facts", {
          token,
          body: { content },
        });
        expect(answer.status).toBe(201);
        acked.set(answer.body.id, content);
      }
    };
    await writeFacts(0, 12);
    // The owner snapshotted (at least once, 5 writes each) and purged the log below its latest
    // snapshot: the subject's first message is the snapshot's own last record.
    const { snapshot, first } = await pollUntil(
      async () => {
        const snapshot = latestPeriodicSnapshot(owner, partition);
        return { snapshot, first: snapshot ? await firstSeqOnSubject(partition) : undefined };
      },
      (seen) => seen.snapshot !== undefined && seen.first === seen.snapshot,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(first).toBe(snapshot);
    // Writes after the snapshot: the log tail a takeover replays.
    await writeFacts(12, 14);

    await killHard(owner.server);
    await waitForSettled([survivor], 20_000);
    expect((await clusterView(survivor)).partitions).toContain(partition);
    const listed = await httpCall(survivor.server.base, "GET", "/memory/facts?limit=100", { token });
    expect(listed.status).toBe(200);
    const items = listed.body.items as Array<{ id: string; content: string }>;
    expect(items.length).toBe(acked.size);
    expect(new Map(items.map((e) => [e.id, e.content]))).toEqual(acked);
    // It restored from a periodic snapshot (not the whole log, which is purged), then the tail.
    const survivorLog = readFileSync(join(cluster.root, `${survivor.label}.log`), "utf8");
    const restored = new RegExp(
      `partition ${partition}: snapshot at (\\d+), then (\\d+) writes replayed`,
    ).exec(survivorLog);
    expect(restored).not.toBeNull();
    expect(Number(restored![1])).toBeGreaterThanOrEqual(snapshot!);
    expect(Number(restored![2])).toBeGreaterThan(0);
  }, 90_000);
});
