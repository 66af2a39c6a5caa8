/**
 * NATS unavailable (docs/cluster.md, "Failure cases": a stream or KV leader loss stops publishes
 * and KV updates for seconds), with real processes: the nats-server is frozen (SIGSTOP), so every
 * publish, renewal and request/reply of the nodes goes unanswered. Owners stop serving within their
 * serve window; meanwhile writes, reads and webhook deliveries through either node answer `503`
 * problem+json with `Retry-After` (never a 500, never an acknowledgement), and `/healthz` still
 * answers. Once the server runs again the partitions are claimed and served: every write
 * acknowledged before the outage is there exactly once and no refused write is; a webhook delivery
 * whose publish went unconfirmed (503) was queued after all, is applied once, and its retry is a
 * duplicate.
 */
import { describe, expect, test } from "bun:test";
import { catalogAuditRow } from "../fakes/data-events.ts";
import {
  clusterView,
  createPlacedTenant,
  useTestCluster,
  waitForSettled,
} from "../helpers/cluster-processes.ts";
import { pollUntil } from "../helpers/poll.ts";
import { adminTokenFor, type HttpAnswer, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-nats-outage-secret-of-32-bytes!!!!";

/** The answer is a refusal to retry: 503 problem+json `unavailable` with a positive Retry-After. */
function expectRetryLater(answer: HttpAnswer, what: string): void {
  expect({ what, status: answer.status }).toEqual({ what, status: 503 });
  expect(answer.headers.get("content-type")).toContain("application/problem+json");
  expect((answer.body as { code: string }).code).toBe("unavailable");
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("cluster: the NATS server frozen, then back (2 nodes)", () => {
  const suite = useTestCluster(["o1", "o2"], SECRET);

  test("during the outage every tenant route answers 503 with Retry-After; after it, all acknowledged writes once", async () => {
    const { cluster } = suite;
    const admin = await adminTokenFor(SECRET);
    const tenant = await createPlacedTenant(cluster, admin, "Outage Co");
    const webhookToken = `data-${crypto.randomUUID()}`;
    await cluster.setSecrets(tenant.id, { DATA_WEBHOOK_TOKEN: webhookToken }, admin);
    const deliver = (base: string, eventId: string) =>
      httpCall(base, "POST", `/webhooks/data/${tenant.id}`, {
        headers: { authorization: `Bearer ${webhookToken}` },
        body: catalogAuditRow(eventId),
      });
    /** The tenant's facts as one node lists them: plain writes by id, webhook facts by event id. */
    const factsAt = async (base: string) => {
      const listed = await httpCall(base, "GET", "/memory/facts?limit=100", { token: tenant.token });
      expect(listed.status).toBe(200);
      const items = listed.body.items as Array<{ id: string; source?: { event_id: string } | null }>;
      return {
        writes: items.filter((e) => !e.source).map((e) => e.id),
        events: items.flatMap((e) => (e.source ? [e.source.event_id] : [])),
      };
    };
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const written = await httpCall(tenant.other.server.base, "POST", "/memory/facts", {
        token: tenant.token,
        body: { content: `Before the outage ${i}` },
      });
      expect(written.status).toBe(201);
      acknowledged.push(written.body.id);
    }

    cluster.nats.proc.kill("SIGSTOP");
    const events: string[] = [];
    try {
      // Renewals go unanswered: each node stops serving within its serve window.
      for (const node of cluster.nodes)
        await pollUntil(
          () => clusterView(node),
          (view) => view.partitions.length === 0,
          { timeoutMs: 15_000, intervalMs: 100 },
        );
      // Both nodes, each route at once: every answer waits out its own bound (owner wait, publish timeout).
      const refusals = [tenant.owner, tenant.other].flatMap((node) => {
        const base = node.server.base;
        const event = `outage-${node.nodeId}`;
        events.push(event);
        return [
          [
            `write via ${node.nodeId}`,
            httpCall(base, "POST", "/memory/facts", {
              token: tenant.token,
              body: { content: `During the outage via ${node.nodeId}` },
            }),
          ],
          [
            `read via ${node.nodeId}`,
            httpCall(base, "GET", `/memory/facts/${acknowledged[0]}`, { token: tenant.token }),
          ],
          [`webhook via ${node.nodeId}`, deliver(base, event)],
        ] as const;
      });
      for (const [what, answer] of refusals) expectRetryLater(await answer, what);
      for (const node of cluster.nodes)
        expect((await httpCall(node.server.base, "GET", "/healthz")).status).toBe(200);
    } finally {
      cluster.nats.proc.kill("SIGCONT");
    }

    await waitForSettled(cluster.nodes, 30_000);
    const after = await httpCall(tenant.other.server.base, "POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "After the outage" },
    });
    expect(after.status).toBe(201);
    acknowledged.push(after.body.id);
    // The unconfirmed deliveries were taken by the server on waking and applied by the owner...
    await pollUntil(
      () => factsAt(tenant.owner.server.base),
      (facts) => facts.events.length === events.length,
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // ...so the platform's retry of each is a duplicate within the stream's window.
    for (const event of events) {
      const retry = await deliver(tenant.other.server.base, event);
      expect(retry.status).toBe(202);
      expect(retry.body).toEqual({ queued: [event] });
    }
    for (const node of cluster.nodes) {
      const facts = await factsAt(node.server.base);
      // Exactly the acknowledged writes (none refused during the outage), each delivery once.
      expect(facts.writes.toSorted()).toEqual(acknowledged.toSorted());
      expect(facts.events.toSorted()).toEqual(events.toSorted());
    }
  }, 90_000);
});
