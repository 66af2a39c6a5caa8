/**
 * Pausing a source is cluster-wide (docs/webhook-operations.md, "In cluster mode"), with real
 * processes: the pause state lives in the tenant's vault, which only the node serving its
 * partition holds; the admin routes name the tenant in their path, so they are forwarded to it, and
 * webhook deliveries through any node go to it through the intake stream. So a pause asked of one
 * node holds deliveries sent to the other, and a resume asked of either releases them once.
 */
import { describe, expect, test } from "bun:test";
import { STANDARD_SECRET, standardSender } from "../fakes/senders/standard.ts";
import { createPlacedTenant, useTestCluster } from "../helpers/cluster-processes.ts";
import { adminTokenFor, httpCall } from "../helpers/server-process.ts";

const SECRET = "cluster-webhook-pause-secret-of-32-bytes!!!";

describe("cluster: a paused source holds deliveries sent to any node (2 nodes)", () => {
  const suite = useTestCluster(["q1", "q2"], SECRET);

  test("paused through the non-owner, delivered through both, resumed through the owner: each applied once", async () => {
    const { cluster } = suite;
    const admin = await adminTokenFor(SECRET);
    const tenant = await createPlacedTenant(cluster, admin, "Cluster Pause Co");
    await cluster.setSecrets(tenant.id, { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET }, admin);
    const sources = `/admin/webhooks/sources/${tenant.id}`;

    const paused = await httpCall(tenant.other.server.base, "POST", `${sources}/standard/pause`, {
      token: admin,
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ source: "standard", status: "paused", held: 0 });

    const deliver = async (base: string, id: string) => {
      const body = JSON.stringify({
        type: "user.created",
        timestamp: new Date().toISOString(),
        data: { id },
      });
      const url = `${base}/webhooks/standard/${tenant.id}`;
      const signed = await standardSender.sign(body, { now: Date.now(), url });
      const res = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body });
      return { status: res.status, body: await res.json() };
    };
    expect(await deliver(tenant.other.server.base, "u-through-other")).toEqual({
      status: 202,
      body: { held: 1 },
    });
    expect(await deliver(tenant.owner.server.base, "u-through-owner")).toEqual({
      status: 202,
      body: { held: 1 },
    });

    for (const node of [tenant.owner, tenant.other]) {
      const listed = await httpCall(node.server.base, "GET", sources, { token: admin });
      expect(listed.body.sources.find((s: { source: string }) => s.source === "standard")).toMatchObject({
        status: "paused",
        held: 2,
      });
    }
    const none = await httpCall(tenant.owner.server.base, "GET", "/memory/facts", { token: tenant.token });
    expect(none.body.items).toEqual([]);

    const resumed = await httpCall(tenant.owner.server.base, "POST", `${sources}/standard/resume`, {
      token: admin,
    });
    expect(resumed.body).toEqual({ source: "standard", status: "active", held: 0 });
    const facts = await httpCall(tenant.other.server.base, "GET", "/memory/facts", { token: tenant.token });
    expect(facts.body.items).toHaveLength(2);
    const log = await httpCall(
      tenant.other.server.base,
      "GET",
      `/admin/webhooks/deliveries/${tenant.id}?outcome=accepted`,
      {
        token: admin,
      },
    );
    expect(log.body.deliveries.map((d: { via: string }) => d.via)).toEqual(["resume", "resume"]);
  }, 60_000);
});
