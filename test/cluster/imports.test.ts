/**
 * Tenant imports in cluster mode with real processes (src/cluster/import-log.ts): an import sent to
 * a non-owner is forwarded, logged by the owner (the imported vault in the object store, a fenced
 * `import` record in the partition's changelog) before it is answered, and moves with the tenant:
 * a `kill -9` of the owner, a periodic snapshot and a rejoin keep exactly the imported entries and
 * the writes after them. A fenced owner's import is refused with 503 and keeps nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { PartitionLog } from "../../src/cluster/fence.ts";
import { IMPORTS_BUCKET, parseImportObjectName } from "../../src/cluster/import-objects.ts";
import { LOG_STREAM, logSubject } from "../../src/cluster/names.ts";
import { partitionOf } from "../../src/cluster/partition.ts";
import { NDJSON } from "../../src/http/ndjson.ts";
import {
  type ClusterNodeProcess,
  clusterView,
  createTenantOwnedBy,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { checkerFromDocument } from "../helpers/openapi-conformance.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-imports-secret-of-at-least-32-bytes!!";
/** The nodes snapshot a partition after this many changelog records (the second test reaches it). */
const SNAPSHOT_RECORDS = 8;
/** Facts of the exported tenant; one of them is found by a search. */
const EXPORTED = 20;
const SEARCHED = "The quokka census moved to the spring";

interface Tenant {
  id: string;
  token: string;
}

/** A source tenant with EXPORTED facts (one batch), exported: the NDJSON and the facts' contents. */
async function exportedTenant(base: string, admin: string, label: string): Promise<string> {
  const created = await httpCall(base, "POST", "/admin/tenants", { token: admin, body: { name: label } });
  expect(created.status).toBe(201);
  const entries = Array.from({ length: EXPORTED }, (_, i) => ({
    content: i === 3 ? SEARCHED : `${label}: imported fact ${i}`,
  }));
  const wrote = await httpCall(base, "POST", "/memory/facts/batch", {
    token: created.body.token,
    body: { entries },
  });
  expect(wrote.status).toBe(201);
  const exported = await fetch(`${base}/admin/tenants/${created.body.tenant_id}/export`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(exported.status).toBe(200);
  return exported.text();
}

/** The import's answer, checked against the OpenAPI document the node serves. */
async function importInto(base: string, admin: string, tenantId: string, ndjson: string) {
  const path = `/admin/tenants/${tenantId}/import`;
  const answer = await fetch(base + path, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": NDJSON },
    body: ndjson,
  });
  const doc = (await (await fetch(`${base}/openapi/json`)).json()) as Record<string, unknown>;
  expect(
    await checkerFromDocument(doc).problems("POST", path, answer.clone() as unknown as Response),
  ).toEqual([]);
  // biome-ignore lint/suspicious/noExplicitAny: the body is read field by field
  return { status: answer.status, headers: answer.headers, body: (await answer.json()) as any };
}

/** Every fact of the tenant as a node serves it: id → content. */
async function factsOf(base: string, tenant: Tenant): Promise<Map<string, string>> {
  const facts = new Map<string, string>();
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const answer = await httpCall(base, "GET", `/memory/facts?limit=500${query}`, { token: tenant.token });
    expect(answer.status).toBe(200);
    for (const e of answer.body.items as Array<{ id: string; content: string }>) {
      expect(facts.has(e.id)).toBe(false);
      facts.set(e.id, e.content);
    }
    cursor = answer.body.next_cursor;
  } while (cursor);
  return facts;
}

async function writeFacts(base: string, tenant: Tenant, contents: string[]): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  for (const content of contents) {
    const answer = await httpCall(base, "POST", "/memory/facts", { token: tenant.token, body: { content } });
    expect(answer.status).toBe(201);
    written.set(answer.body.id, content);
  }
  return written;
}

/** What a node serves of the tenant is exactly `expected`: the list, each entry by id, a search. */
async function expectServed(base: string, tenant: Tenant, expected: Map<string, string>): Promise<void> {
  expect(await factsOf(base, tenant)).toEqual(expected);
  for (const [id, content] of [...expected].filter((_, i) => i % 7 === 0)) {
    const got = await httpCall(base, "GET", `/memory/facts/${id}`, { token: tenant.token });
    expect(got.status).toBe(200);
    expect(got.body.content).toBe(content);
  }
  const found = await httpCall(base, "POST", "/memory/search", {
    token: tenant.token,
    body: { query: "quokka census", limit: 3 },
  });
  expect(found.status).toBe(200);
  expect(found.body.results[0].entry.content).toBe(SEARCHED);
}

/** The node's log lines matching `pattern` (its first group, as numbers). */
function logged(cluster: TestCluster, node: ClusterNodeProcess, pattern: string): number[] {
  const text = readFileSync(join(cluster.root, `${node.label}.log`), "utf8");
  return [...text.matchAll(new RegExp(pattern, "g"))].map((m) => Number(m[1]));
}

describe("cluster: tenant imports move with the tenant (3 nodes)", () => {
  let cluster: TestCluster;
  let nc: NatsConnection;
  let admin: string;

  /** Every node running (a test may have killed one) and the partitions settled. */
  async function allNodesUp(): Promise<void> {
    for (const node of [...cluster.nodes])
      if (node.server.proc.exitCode !== null || node.server.proc.signalCode !== null)
        await cluster.startNode(node.nodeId);
    await waitForSettled(cluster.nodes, 20_000);
  }

  /** The import objects of the tenant left in the object store. */
  async function importObjectsOf(tenantId: string): Promise<string[]> {
    const store = await new Objm(nc).open(IMPORTS_BUCKET);
    return (await store.list())
      .map((info) => info.name)
      .filter((name) => parseImportObjectName(name)?.tenantId === tenantId);
  }

  beforeAll(async () => {
    cluster = await startTestCluster(["i1", "i2", "i3"], SECRET, {
      MEMORY_RUNTIME_CLUSTER_SNAPSHOT_RECORDS: String(SNAPSHOT_RECORDS),
    });
    admin = await adminTokenFor(SECRET);
    nc = await connect({ servers: cluster.nats.url });
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster.stop();
  });

  test("an import through a non-owner survives the owner's kill -9 and its rejoin, writes after it on top", async () => {
    await allNodesUp();
    const [via, victim] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
    const ndjson = await exportedTenant(via.server.base, admin, "Takeover export");
    const target = await createTenantOwnedBy(
      cluster,
      victim.nodeId,
      via.server.base,
      admin,
      "Takeover import",
    );

    const imported = await importInto(via.server.base, admin, target.id, ndjson);
    expect(imported.status).toBe(200);
    expect(imported.body.imported.entries).toBe(EXPORTED);
    const expected = await factsOf(victim.server.base, target);
    expect(expected.size).toBe(EXPORTED);
    for (const [id, content] of await writeFacts(via.server.base, target, ["after the import 1", "after 2"]))
      expected.set(id, content);
    // The owner logged the import (object, then record) before answering.
    const partition = partitionOf(target.id);
    expect(
      logged(cluster, victim, `partition ${partition}: import into ${target.id} logged at (\\d+)`),
    ).toHaveLength(1);
    expect(await importObjectsOf(target.id)).toHaveLength(1);

    await killHard(victim.server);
    const survivors = cluster.nodes.filter((n) => n !== victim);
    await waitForSettled(survivors, 20_000);
    for (const node of survivors) await expectServed(node.server.base, target, expected);
    for (const [id, content] of await writeFacts(via.server.base, target, ["after the takeover"]))
      expected.set(id, content);

    // The killed node rejoins: the partition moves back to it, the import and the writes with it.
    const back = await cluster.startNode(victim.nodeId);
    await waitForSettled(cluster.nodes, 20_000);
    expect((await clusterView(back)).partitions).toContain(partition);
    await expectServed(back.server.base, target, expected);
  }, 90_000);

  test("a periodic snapshot after an import keeps it, and deletes the import's object", async () => {
    await allNodesUp();
    const [via, , victim] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess, ClusterNodeProcess];
    const ndjson = await exportedTenant(via.server.base, admin, "Snapshot export");
    const target = await createTenantOwnedBy(
      cluster,
      victim.nodeId,
      via.server.base,
      admin,
      "Snapshot import",
    );
    const partition = partitionOf(target.id);

    expect((await importInto(via.server.base, admin, target.id, ndjson)).status).toBe(200);
    const expected = await factsOf(victim.server.base, target);
    const importedAt = logged(
      cluster,
      victim,
      `partition ${partition}: import into ${target.id} logged at (\\d+)`,
    );
    expect(importedAt).toHaveLength(1);
    // The import and these writes reach the snapshot threshold.
    const contents = Array.from({ length: SNAPSHOT_RECORDS }, (_, i) => `after the import ${i}`);
    for (const [id, content] of await writeFacts(via.server.base, target, contents))
      expected.set(id, content);

    // The owner snapshotted the partition past the import record, purged the log below it, and
    // deleted the import's object: only the snapshot holds the import now.
    await pollUntil(
      async () => {
        const seqs = logged(cluster, victim, `partition ${partition}: periodic snapshot at (\\d+)`);
        return { seq: seqs.at(-1) ?? 0, objects: await importObjectsOf(target.id) };
      },
      (seen) => seen.seq >= importedAt[0]! && seen.objects.length === 0,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const consumer = await jetstream(nc).consumers.get(LOG_STREAM, {
      filter_subjects: logSubject(partition),
    });
    const first = await consumer.next({ expires: 2000 });
    expect(first?.seq).toBeGreaterThan(importedAt[0]!);

    await killHard(victim.server);
    const survivors = cluster.nodes.filter((n) => n !== victim);
    await waitForSettled(survivors, 20_000);
    for (const node of survivors) await expectServed(node.server.base, target, expected);
  }, 90_000);
});

describe("cluster: a fenced owner's import (real runtime process)", () => {
  let cluster: TestCluster;
  let nc: NatsConnection;

  beforeAll(async () => {
    cluster = await startTestCluster(["g1"], SECRET);
    await waitForSettled(cluster.nodes);
    nc = await connect({ servers: cluster.nats.url });
  }, 60_000);
  afterAll(async () => {
    await nc?.close();
    await cluster.stop();
  });

  test("is refused with 503 after a rogue claim and keeps nothing; the next import, once re-claimed, lands", async () => {
    const node = cluster.nodes[0]!;
    const base = node.server.base;
    const admin = await adminTokenFor(SECRET);
    const ndjson = await exportedTenant(base, admin, "Fenced export");
    const created = await httpCall(base, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Fenced import" },
    });
    const target = { id: created.body.tenant_id as string, token: created.body.token as string };
    const partition = partitionOf(target.id);

    const rogue = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "rogue");
    expect(await rogue.claim(partition)).toBeGreaterThan(0);
    const refused = await importInto(base, admin, target.id, ndjson);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(refused.body.code).toBe("unavailable");
    expect((await clusterView(node)).partitions).not.toContain(partition);
    expect(
      logged(cluster, node, `partition ${partition}: import into ${target.id} logged at (\\d+)`),
    ).toEqual([]);

    // The owner claims again after its own lease goes stale (4 s), rebuilding the vault from the log.
    await pollUntil(async () => (await clusterView(node)).partitions.includes(partition), Boolean, {
      timeoutMs: 15_000,
      intervalMs: 100,
    });
    expect(await factsOf(base, target)).toEqual(new Map());
    const landed = await importInto(base, admin, target.id, ndjson);
    expect(landed.status).toBe(200);
    expect((await factsOf(base, target)).size).toBe(EXPORTED);
  }, 60_000);
});
