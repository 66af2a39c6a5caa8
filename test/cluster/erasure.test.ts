/**
 * Erased entries and deleted tenants leave NATS (src/cluster/erasure.ts, compaction.ts,
 * secure-delete.ts), with real processes: a tenant's distinctive text is written, snapshotted by
 * a periodic compaction (so it is in a snapshot object and in log messages already removed), then
 * erased (or its tenant deleted) through a node that does not own it. Once answered, the text is
 * in no message of `MR_LOG`, no object of `mr-snapshots` and no file of the nats-server's store
 * directory (its message blocks included), and another tenant of the same partition, writing all
 * along, keeps every acknowledged write across the compaction and a `kill -9` takeover.
 */
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { LOG_STREAM, logSubject } from "../../src/cluster/names.ts";
import { partitionLabel, partitionOf } from "../../src/cluster/partition.ts";
import { readObject, SNAPSHOTS_BUCKET } from "../../src/cluster/snapshots.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  type TestCluster,
  useTestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-erasure-secret-of-at-least-32-bytes!!";
/**
 * A periodic compaction every 5 writes of a partition: the 3 writes of the text and 2 of the other
 * tenant are snapshotted (and their log messages removed) before the erasure. The other tenant's
 * 3 writes during the erasure, with the erasure's own, stay below 5: no periodic compaction can
 * remove the text in its stead before the answer is checked.
 */
const SNAPSHOT_RECORDS = "5";
const WRITES_BEFORE = 2;
const WRITES_DURING = 3;
/** Then enough for a periodic compaction before the kill. */
const WRITES_AFTER = 6;

interface Tenant {
  id: string;
  token: string;
}

interface Traces {
  log: string[];
  objects: string[];
  files: string[];
}

/** Every place in NATS the needle is in: log messages (parts decoded), snapshot objects, store files. */
async function tracesOf(nc: NatsConnection, storeDir: string, needle: string): Promise<Traces> {
  const traces: Traces = { log: [], objects: [], files: [] };
  const bytes = Buffer.from(needle);
  const jsm = await jetstreamManager(nc);
  const messages = (await jsm.streams.info(LOG_STREAM)).state.messages;
  if (messages > 0) {
    const consumer = await jetstream(nc).consumers.get(LOG_STREAM, { deliver_policy: DeliverPolicy.All });
    // One message at a time with an expiry: a compaction may purge what was counted above, and a
    // consumer waiting for messages that are gone would never end.
    for (;;) {
      const msg = await consumer.next({ expires: 2000 });
      if (!msg) break;
      const text = msg.string();
      const record = JSON.parse(text) as { type: string; data?: string };
      const decoded = record.type === "part" ? Buffer.from(record.data ?? "", "base64").toString() : "";
      if (text.includes(needle) || decoded.includes(needle)) traces.log.push(`${msg.subject}#${msg.seq}`);
      if (msg.info.pending === 0) break;
    }
  }
  const store = await new Objm(nc).open(SNAPSHOTS_BUCKET);
  for (const info of await store.list()) {
    // A compaction running meanwhile may delete an older snapshot's object while it is read.
    const blob = await readObject(store, info.name, 2000).catch(async (error) => {
      if ((await store.info(info.name))?.deleted) return null;
      throw error;
    });
    if (blob && Buffer.from(blob).includes(bytes)) traces.objects.push(info.name);
  }
  for (const file of filesUnder(storeDir)) if (readFileSync(file).includes(bytes)) traces.files.push(file);
  return traces;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const NO_TRACES: Traces = { log: [], objects: [], files: [] };

/** Two tenants of one partition (ids are random: created until two share one, bounded). */
async function twoTenantsOfOnePartition(
  base: string,
  admin: string,
  label: string,
): Promise<[Tenant, Tenant]> {
  const byPartition = new Map<number, Tenant>();
  for (let i = 0; i < 80; i++) {
    const created = await httpCall(base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: `${label} ${i}` },
    });
    expect(created.status).toBe(201);
    const tenant = { id: created.body.tenant_id as string, token: created.body.token as string };
    const other = byPartition.get(partitionOf(tenant.id));
    if (other) return [other, tenant];
    byPartition.set(partitionOf(tenant.id), tenant);
  }
  throw new Error("no two tenants of one partition among 80");
}

async function writeFact(base: string, tenant: Tenant, content: string): Promise<string> {
  const answer = await httpCall(base, "POST", "/memory/facts", { token: tenant.token, body: { content } });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

async function factsOf(base: string, tenant: Tenant): Promise<Map<string, string>> {
  const answer = await httpCall(base, "GET", "/memory/facts?limit=500", { token: tenant.token });
  expect(answer.status).toBe(200);
  return new Map((answer.body.items as Array<{ id: string; content: string }>).map((e) => [e.id, e.content]));
}

/** The partition's latest snapshot holds the tenant, and the log below it is gone. */
async function snapshotted(nc: NatsConnection, partition: number, tenantId: string): Promise<boolean> {
  const store = await new Objm(nc).open(SNAPSHOTS_BUCKET);
  const label = partitionLabel(partition);
  const seqs = (await store.list())
    .map((info) => new RegExp(`^${label}/(\\d+)/${tenantId}$`).exec(info.name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]));
  if (seqs.length === 0) return false;
  const consumer = await jetstream(nc).consumers.get(LOG_STREAM, { filter_subjects: logSubject(partition) });
  const first = await consumer.next({ expires: 2000 });
  return first !== null && first.seq === Math.max(...seqs);
}

/**
 * The scenario both tests run: `victim` writes the needle (and `keeper` writes), a periodic
 * compaction snapshots it, then `act` (the erasure or the deletion) runs through the non-owner
 * while `keeper` writes; checked once answered, then after a `kill -9` of the owner.
 */
async function eraseAndCheck(
  cluster: TestCluster,
  nc: NatsConnection,
  label: string,
  act: (via: string, admin: string, victim: Tenant, needle: string) => Promise<void>,
): Promise<void> {
  const admin = await adminTokenFor(SECRET);
  const [first] = cluster.nodes as [ClusterNodeProcess];
  const [victim, keeper] = await twoTenantsOfOnePartition(first.server.base, admin, label);
  const partition = partitionOf(victim.id);
  const ownerId = (await clusterView(first)).owners[partition];
  const owner = cluster.nodes.find((n) => n.nodeId === ownerId)!;
  const other = cluster.nodes.find((n) => n.nodeId !== ownerId)!;
  const needle = `Quorvex${randomBytes(6).toString("hex")}`;

  const kept = new Map<string, string>();
  const keep = async (i: number) => {
    const content = `kept fact ${i} of ${keeper.id}`;
    kept.set(await writeFact(other.server.base, keeper, content), content);
  };
  for (let i = 0; i < 3; i++) await writeFact(other.server.base, victim, `${needle} confided secret ${i}`);
  for (let i = 0; i < WRITES_BEFORE; i++) await keep(i);
  // A periodic compaction (5 writes) snapshotted the text: it is in an object, its log messages gone.
  await pollUntil(
    () => snapshotted(nc, partition, victim.id),
    (done) => done,
    { timeoutMs: 20_000, intervalMs: 100 },
  );
  expect((await tracesOf(nc, cluster.nats.storeDir, needle)).objects.length).toBeGreaterThan(0);

  let written = WRITES_BEFORE;
  const writing = (async () => {
    for (const end = written + WRITES_DURING; written < end; ) await keep(written++);
  })();
  await act(other.server.base, admin, victim, needle);
  expect(await tracesOf(nc, cluster.nats.storeDir, needle)).toEqual(NO_TRACES);
  await writing;
  for (const end = written + WRITES_AFTER; written < end; ) await keep(written++);
  expect(await factsOf(other.server.base, keeper)).toEqual(kept);

  await killHard(owner.server);
  await waitForSettled([other], 20_000);
  expect((await clusterView(other)).partitions).toContain(partition);
  expect(await factsOf(other.server.base, keeper)).toEqual(kept);
  expect(await tracesOf(nc, cluster.nats.storeDir, needle)).toEqual(NO_TRACES);
}

describe("cluster: erased entries leave NATS (2 nodes)", () => {
  const suite = useTestCluster(["x1", "x2"], SECRET, {
    MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: SNAPSHOT_RECORDS,
  });

  test("an erasure is answered once its text is in no log message, snapshot object or store file", async () => {
    const { cluster, nc } = suite;
    await eraseAndCheck(cluster, nc, "Erasing", async (via, admin, victim, needle) => {
      const erased = await httpCall(via, "POST", `/admin/tenants/${victim.id}/erase`, {
        token: admin,
        body: { subject: needle },
      });
      expect(erased.status).toBe(200);
      expect(erased.body.erased).toHaveLength(3);
      expect(await factsOf(via, victim)).toEqual(new Map());
    });
  }, 90_000);
});

describe("cluster: a deleted tenant's data leaves NATS (2 nodes)", () => {
  const suite = useTestCluster(["y1", "y2"], SECRET, {
    MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: SNAPSHOT_RECORDS,
  });

  test("a deletion is answered once the tenant's text is in no log message, snapshot object or store file", async () => {
    const { cluster, nc } = suite;
    await eraseAndCheck(cluster, nc, "Deleting", async (via, admin, victim) => {
      const suspended = await httpCall(via, "POST", `/admin/tenants/${victim.id}/suspend`, { token: admin });
      expect(suspended.status).toBe(200);
      const deleted = await httpCall(via, "DELETE", `/admin/tenants/${victim.id}`, { token: admin });
      expect(deleted.status).toBe(200);
      expect(deleted.body.removed.entries).toBe(3);
    });
  }, 90_000);
});

describe("cluster: an erasure whose compaction failed is finished by the next owner (2 nodes)", () => {
  // No periodic compaction here: only the takeover's can remove the text.
  const suite = useTestCluster(["z1", "z2"], SECRET);

  test("the erasure is committed and answered 503; after a kill -9 the new owner compacts", async () => {
    const { cluster, nc } = suite;
    const admin = await adminTokenFor(SECRET);
    const [first] = cluster.nodes as [ClusterNodeProcess];
    const [victim, keeper] = await twoTenantsOfOnePartition(first.server.base, admin, "Unfinished");
    const partition = partitionOf(victim.id);
    const ownerId = (await clusterView(first)).owners[partition];
    const owner = cluster.nodes.find((n) => n.nodeId === ownerId)!;
    const other = cluster.nodes.find((n) => n !== owner)!;
    const needle = `Quorvex${randomBytes(6).toString("hex")}`;
    for (let i = 0; i < 3; i++) await writeFact(other.server.base, victim, `${needle} confided secret ${i}`);
    const kept = new Map<string, string>();
    for (let i = 0; i < 3; i++) {
      const content = `kept fact ${i} of ${keeper.id}`;
      kept.set(await writeFact(other.server.base, keeper, content), content);
    }

    // The snapshot store is gone while the erasure's compaction runs: it fails after the erasure committed.
    await (await jetstreamManager(nc)).streams.delete(`OBJ_${SNAPSHOTS_BUCKET}`);
    const erased = await httpCall(other.server.base, "POST", `/admin/tenants/${victim.id}/erase`, {
      token: admin,
      body: { subject: needle },
    });
    expect(erased.status).toBe(503);
    expect(erased.headers.get("retry-after")).toBe("10");
    await new Objm(nc).create(SNAPSHOTS_BUCKET);
    expect((await tracesOf(nc, cluster.nats.storeDir, needle)).log.length).toBeGreaterThan(0);

    await killHard(owner.server);
    await waitForSettled([other], 20_000);
    // The new owner's replay met the erasure: it compacts once it serves the partition.
    await pollUntil(
      () => tracesOf(nc, cluster.nats.storeDir, needle),
      (traces) => Bun.deepEquals(traces, NO_TRACES),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(await factsOf(other.server.base, victim)).toEqual(new Map());
    expect(await factsOf(other.server.base, keeper)).toEqual(kept);
    // A retry of the erasure finds nothing left and nothing owed.
    const retried = await httpCall(other.server.base, "POST", `/admin/tenants/${victim.id}/erase`, {
      token: admin,
      body: { subject: needle },
    });
    expect(retried.status).toBe(200);
    expect(retried.body.erased).toEqual([]);
  }, 90_000);
});
