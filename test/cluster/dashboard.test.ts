/**
 * The operator dashboard in cluster mode, with real processes (one nats-server, two runtime
 * nodes): the page has no tenant, so the node asked renders it, and each tenant's figures come
 * from the node serving the tenant (src/cluster/remote-figures.ts). Both nodes show every tenant's
 * true entry counts, dead letters and revenue; the owner of some tenants killed, their rows say
 * unavailable (never a 500) until the survivor serves them, then show the same figures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { partitionOf } from "../../src/cluster/partition.ts";
import {
  type ClusterNodeProcess,
  createTenantOwnedBy,
  type PlacedTenant,
  startTestCluster,
  type TestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, httpCall, killHard } from "../helpers/server-process.ts";

const SECRET = "cluster-dashboard-secret-of-32-bytes-at-least";
/** The tenants table's cells after the name: status, the six categories, total, dead letters. */
const ROW_A = ["active", "0", "0", "2", "1", "0", "0", "3", "0"];
const ROW_B = ["active", "1", "0", "1", "0", "0", "1", "3", "1"];
/** The revenue table's cells after the name: revenue, agents, per agent. */
const REVENUE_B = ["1,234.5 USD", "2", "617.25 USD"];

let cluster: TestCluster;
let admin: string;
/** Served by the first node. */
let tenantA: PlacedTenant;
/** Served by the second node, with a dead letter and revenue. */
let tenantB: PlacedTenant;

async function created(base: string, token: string, plural: string, body: Record<string, unknown>) {
  const answer = await httpCall(base, "POST", `/memory/${plural}`, { token, body });
  expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 201 });
  return answer.body.id as string;
}

/** The dashboard as `node` renders it, asked with the operator's bearer token or its cookie. */
async function dashboard(node: ClusterNodeProcess, how: "bearer" | "cookie" = "bearer") {
  const headers: Record<string, string> =
    how === "bearer" ? { authorization: `Bearer ${admin}` } : { cookie: `memory_admin=${admin}` };
  const res = await fetch(`${node.server.base}/admin/dashboard?limit=100`, { headers });
  return { status: res.status, text: await res.text() };
}

/** The cells of the rows carrying `data-tenant="<id>"` (tenants table, then revenue table), name left out. */
function rowsOf(page: string, tenantId: string): string[][] {
  const rows = [...page.matchAll(new RegExp(`<tr data-tenant="${tenantId}">([\\s\\S]*?)</tr>`, "g"))];
  return rows.map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)]
      .map((cell) =>
        unescaped(
          cell[1]!
            .replace(/<[^>]+>/g, " ")
            .replace(/\s+/g, " ")
            .trim(),
        ),
      )
      .slice(1),
  );
}

function unescaped(text: string): string {
  const entities: Record<string, string> = {
    "&#39;": "'",
    "&quot;": '"',
    "&lt;": "<",
    "&gt;": ">",
    "&amp;": "&",
  };
  return text.replace(/&#39;|&quot;|&lt;|&gt;|&amp;/g, (entity) => entities[entity]!);
}

function expectFigures(page: string): void {
  // A's entries were written by its token's subject, an agent that earned nothing.
  expect(rowsOf(page, tenantA.id)).toEqual([ROW_A, ["0 USD", "1", "0 USD"]]);
  const [counts, revenue] = rowsOf(page, tenantB.id);
  expect(counts).toEqual(ROW_B);
  expect(revenue!.slice(0, 3)).toEqual(REVENUE_B);
}

/** Tenant B's rows while its partition has no serving owner. */
function unavailableRows(): string[][] {
  const reason = `unavailable: no node serves this tenant's partition (${partitionOf(tenantB.id)}) now`;
  return [["active", reason], [reason]];
}

describe("cluster: the dashboard shows every tenant's figures on every node (2 nodes)", () => {
  beforeAll(async () => {
    cluster = await startTestCluster(["g1", "g2"], SECRET);
    admin = await adminTokenFor(cluster.secret);
    await waitForSettled(cluster.nodes);
    const [g1, g2] = cluster.nodes as [ClusterNodeProcess, ClusterNodeProcess];
    tenantA = await createTenantOwnedBy(cluster, "g1", g1.server.base, admin, "Dashboard A");
    tenantB = await createTenantOwnedBy(cluster, "g2", g1.server.base, admin, "Dashboard B");
    // Each written through the node that does not serve it (forwarded to the owner).
    await created(g2.server.base, tenantA.token, "facts", { content: "A has 40 seats" });
    await created(g2.server.base, tenantA.token, "facts", { content: "A moved to Berlin" });
    await created(g2.server.base, tenantA.token, "workflows", { content: "A renews through legal" });
    const decision = await created(g1.server.base, tenantB.token, "decisions", {
      content: "Offer B a discount",
      agent_id: "agent-7",
    });
    await created(g1.server.base, tenantB.token, "outcomes", {
      content: "B signed",
      decision_id: decision,
      result: "success",
      amount: 1234.5,
      agent_id: "agent-7",
    });
    await created(g1.server.base, tenantB.token, "facts", { content: "B pays yearly", agent_id: "agent-8" });
    // An event no mapping knows, delivered to the non-owner: the owner keeps it as a dead letter.
    const webhookToken = `data-${crypto.randomUUID()}`;
    await cluster.setSecrets(tenantB.id, { DATA_WEBHOOK_TOKEN: webhookToken }, admin);
    const delivery = await fetch(`${g1.server.base}/webhooks/data/${tenantB.id}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${webhookToken}` },
      body: JSON.stringify({
        event: "MODEL_VERSION_DELETED",
        webhook_id: "wh",
        event_timestamp: Date.now(),
        model_name: "churn",
        version: "1",
      }),
    });
    // The owner's own answer (CONTRACT §7), relayed by the receiving node within its 5 s wait.
    expect(delivery.status).toBe(200);
    expect(((await delivery.json()) as { dead_lettered: string[] }).dead_lettered).toHaveLength(1);
    await pollUntil(
      () => httpCall(g1.server.base, "GET", `/admin/metrics/stats/${tenantB.id}`, { token: admin }),
      (answer) => answer.body?.dead_letters === 1,
      { timeoutMs: 15_000, intervalMs: 50 },
    );
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  test("each node's dashboard shows both tenants' true figures, as each tenant's own stats say", async () => {
    for (const node of cluster.nodes) {
      for (const how of ["bearer", "cookie"] as const) {
        const page = await dashboard(node, how);
        expect(page.status).toBe(200);
        expectFigures(page.text);
      }
    }
    // The same counts as the stats route answers for each tenant, through either node.
    for (const tenant of [tenantA, tenantB])
      for (const node of cluster.nodes) {
        const stats = await httpCall(node.server.base, "GET", `/admin/metrics/stats/${tenant.id}`, {
          token: admin,
        });
        expect(stats.status).toBe(200);
        const counts = Object.values(stats.body.entries_per_category as Record<string, number>);
        const total = counts.reduce((a, b) => a + b, 0);
        const expected = tenant === tenantA ? ROW_A : ROW_B;
        expect([...counts, total, stats.body.dead_letters].map(String)).toEqual(expected.slice(1));
      }
  }, 30_000);

  test("the owner killed: its tenant's rows say unavailable (a 200, never a 500), then the survivor's figures", async () => {
    const survivor = cluster.nodes.find((n) => n.nodeId === tenantA.owner.nodeId)!;
    const killed = tenantB.owner;
    await killHard(killed.server);
    // Asked at once: a successor claims a lease only 4 s after its last renewal.
    const first = await dashboard(survivor);
    expect(first.status).toBe(200);
    expect(rowsOf(first.text, tenantA.id)[0]).toEqual(ROW_A);
    expect(rowsOf(first.text, tenantB.id)).toEqual(unavailableRows());
    // Until the survivor serves B: every answer a 200, B's rows unavailable or its true figures.
    const settled = await pollUntil(
      async () => {
        const page = await dashboard(survivor);
        expect(page.status).toBe(200);
        const rows = rowsOf(page.text, tenantB.id);
        if (JSON.stringify(rows) !== JSON.stringify(unavailableRows())) expectFigures(page.text);
        return rows;
      },
      (rows) => rows[0]![1] !== unavailableRows()[0]![1],
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(settled[0]).toEqual(ROW_B);
    // The killed node rejoins (holding nothing of its own old copies) and shows the same page.
    const back = await cluster.startNode(killed.nodeId);
    await waitForSettled(cluster.nodes);
    const rejoined = await dashboard(back);
    expect(rejoined.status).toBe(200);
    expectFigures(rejoined.text);
  }, 60_000);
});
