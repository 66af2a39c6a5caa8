/**
 * Three real runtime processes and one nats-server on loopback: any node answers any route as the
 * owner would (same status, body and headers), system state is shared, `/healthz` shows the cluster.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { partitionOf } from "../../src/cluster/partition.ts";
import { STANDARD_SECRET, standardSender } from "../fakes/senders/standard.ts";
import {
  clusterView,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { checkerFromDocument } from "../helpers/openapi-conformance.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-forwarding-secret-of-at-least-32-bytes";
let cluster: TestCluster;
let admin: string;

describe("cluster: forwarding and shared system state (3 nodes)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["n1", "n2", "n3"], SECRET);
    admin = await adminTokenFor(cluster.secret);
    await waitForSettled(cluster.nodes);
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  test("/healthz shows the node, the partitions it serves and the same owners on every node", async () => {
    const views = await Promise.all(cluster.nodes.map(clusterView));
    for (const [i, view] of views.entries()) {
      expect(view.node_id).toBe(cluster.nodes[i]!.nodeId);
      expect(view.nodes).toEqual(["n1", "n2", "n3"]);
      for (const p of view.partitions) expect(view.owners[p]).toBe(view.node_id);
      expect(view.owners).toEqual(views[0]!.owners);
    }
  });

  test("a tenant created on one node is served by every node with the owner's status, body and headers", async () => {
    const [n1, n2, n3] = cluster.nodes.map((n) => n.server.base) as [string, string, string];
    const created = await httpCall(n1, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Forwarded Co" },
    });
    expect(created.status).toBe(201);
    const { tenant_id: tenantId, token } = created.body;
    const owner = (await clusterView(cluster.nodes[0]!)).owners[partitionOf(tenantId)];
    expect(["n1", "n2", "n3"]).toContain(owner as string);

    const written = await httpCall(n2, "POST", "/memory/facts", {
      token,
      body: { content: "The cluster forwards requests" },
      headers: { "x-request-id": "fwd-write-1" },
    });
    expect(written.status).toBe(201);
    expect(written.headers.get("x-request-id")).toBe("fwd-write-1");
    const id = written.body.id;

    const answers = await Promise.all(
      [n1, n2, n3].map((base) =>
        httpCall(base, "GET", `/memory/facts/${id}`, { token, headers: { "x-request-id": "fwd-read-1" } }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
      expect(answer.headers.get("content-type")).toBe(answers[0]!.headers.get("content-type"));
      expect(answer.headers.get("x-request-id")).toBe("fwd-read-1");
    }
    expect(answers[0]!.body.content).toBe("The cluster forwards requests");

    // An error answer comes back as the owner gave it too.
    const missing = await Promise.all(
      [n1, n2, n3].map((base) => httpCall(base, "GET", "/memory/facts/00000000", { token })),
    );
    for (const answer of missing) {
      expect(answer.status).toBe(404);
      expect(answer.headers.get("content-type")).toBe("application/problem+json");
      expect(answer.body.code).toBe(missing[0]!.body.code);
    }
  });

  test("a role deleted on one node stops its tokens on every node", async () => {
    const [n1, n2, n3] = cluster.nodes.map((n) => n.server.base) as [string, string, string];
    const created = await httpCall(n3, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Roles Co" },
    });
    const tenantId = created.body.tenant_id;
    const role = await httpCall(n1, "POST", `/admin/roles/${tenantId}`, {
      token: admin,
      body: { name: "reader", permissions: ["memory:read"] },
    });
    expect(role.status).toBe(201);
    const minted = await httpCall(n2, "POST", `/admin/jwt/${tenantId}`, {
      token: admin,
      body: { roles: ["reader"], sub: "agent-1", ttl_seconds: 600 },
    });
    expect(minted.status).toBe(201);
    const reader = minted.body.token;
    for (const base of [n1, n2, n3])
      expect((await httpCall(base, "GET", "/memory/facts", { token: reader })).status).toBe(200);

    expect((await httpCall(n2, "DELETE", `/admin/roles/${tenantId}/reader`, { token: admin })).status).toBe(
      200,
    );
    for (const base of [n1, n2, n3])
      expect((await httpCall(base, "GET", "/memory/facts", { token: reader })).status).toBe(403);
    // Every node lists the tenants the others created.
    for (const base of [n1, n2, n3]) {
      const listed = await httpCall(base, "GET", "/admin/tenants?limit=1000", { token: admin });
      expect(listed.body.tenants.map((t: { name: string }) => t.name)).toContain("Roles Co");
    }
  });
  test("webhooks: checked at the receiving node, queued under their event id, answered by the owner", async () => {
    const [n1, n2, n3] = cluster.nodes.map((n) => n.server.base) as [string, string, string];
    const created = await httpCall(n1, "POST", "/admin/tenants", {
      token: admin,
      body: { name: "Hooks Co" },
    });
    const tenantId = created.body.tenant_id as string;
    await cluster.setSecrets(tenantId, { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET }, admin);
    const body = JSON.stringify({
      type: "user.created",
      timestamp: "2026-11-21T09:59:00.000Z",
      data: { id: "u-1" },
    });
    const send = async (base: string, headers: Record<string, string>) =>
      fetch(`${base}/webhooks/standard/${tenantId}`, { method: "POST", headers, body });
    const signed = (base: string) =>
      standardSender.sign(body, { now: Date.now(), url: `${base}/webhooks/standard/${tenantId}` });

    // A forged signature never enters the stream: the receiving node refuses it.
    const forged = await send(n2, { ...(await signed(n2)).headers, "webhook-signature": "v1,Zm9yZ2Vk" });
    expect(forged.status).toBe(401);
    expect(forged.headers.get("content-type")).toBe("application/problem+json");

    const first = await send(n2, (await signed(n2)).headers);
    expect(first.status).toBe(200);
    const summary = (await first.json()) as { accepted: number; entries: string[] };
    expect(summary.accepted).toBe(1);
    // The platform's retry of the same event (same webhook-id, a new signature) through another node:
    // one message in the stream (its id is the event id), answered 202 at once, nothing written twice.
    const retry = await send(n3, (await signed(n3)).headers);
    expect(retry.status).toBe(202);
    // The 202 is the route's documented cluster answer (the OpenAPI document any node serves).
    const doc = (await (await fetch(`${n3}/openapi/json`)).json()) as Record<string, unknown>;
    const path = `/webhooks/standard/${tenantId}`;
    expect(
      await checkerFromDocument(doc).problems("POST", path, retry.clone() as unknown as Response),
    ).toEqual([]);
    const queued = (await retry.json()) as { queued: string[] };
    expect(queued.queued).toEqual([(await signed(n3)).headers["webhook-id"]!]);
    const listed = await httpCall(n1, "GET", "/memory/facts", { token: created.body.token });
    expect(listed.body.items.map((e: { id: string }) => e.id)).toEqual(summary.entries);
  });
});
