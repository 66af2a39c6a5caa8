import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { tokenWithRole } from "../helpers/api.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const clock = new ManualClock(Date.UTC(2026, 10, 23, 9, 0, 0));
const iso = (ms: number) => new Date(ms).toISOString();

let h: Harness;
let tenantId: string;
let token: string;
beforeAll(async () => {
  h = await startHarness({ clock });
  ({ tenant_id: tenantId, token } = await h.createTenant());
});
afterAll(() => h.close());

async function write(plural: string, body: Record<string, unknown>, as = token) {
  const { status, body: entry } = await h.json("POST", `/memory/${plural}`, { token: as, body });
  expect({ status, entry }).toMatchObject({ status: 201 });
  return entry;
}

async function history(plural: string, id: string, as = token) {
  const { status, body } = await h.json("GET", `/memory/${plural}/${id}/history`, { token: as });
  expect({ status, body }).toMatchObject({ status: 200 });
  return body;
}

describe("DELETE /memory/{category}/{sha8}: retraction", () => {
  test("the entry is known no more from now on; as_of an earlier time still sees it", async () => {
    const fact = await write("facts", { content: `Acme pays net 60 ${Math.random()}` });
    const before = clock.now();
    clock.advance(60_000);
    const res = await h.json("DELETE", `/memory/facts/${fact.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: fact.id, expired_at: iso(clock.now()), content: fact.content });
    const now = await h.json("GET", "/memory/facts?limit=500", { token });
    expect(now.body.items.map((e: { id: string }) => e.id)).not.toContain(fact.id);
    const then = await h.json("GET", `/memory/facts?limit=500&as_of=${iso(before)}`, { token });
    expect(then.body.items.map((e: { id: string }) => e.id)).toContain(fact.id);
    const searched = await h.json("POST", "/memory/search", { token, body: { query: fact.content } });
    expect(searched.body.results.map((r: { entry: { id: string } }) => r.entry.id)).not.toContain(fact.id);
  });

  test("retracting again changes nothing and answers the entry as it is", async () => {
    const fact = await write("facts", { content: `twice ${Math.random()}` });
    const first = await h.json("DELETE", `/memory/facts/${fact.id}`, { token });
    clock.advance(1000);
    const second = await h.json("DELETE", `/memory/facts/${fact.id}`, { token });
    expect(second.status).toBe(200);
    expect(second.body.expired_at).toBe(first.body.expired_at);
  });

  test("without memory:write for that category → 403, recorded as a denial; the entry stays", async () => {
    const fact = await write("facts", { content: `guarded ${Math.random()}` });
    const reader = await tokenWithRole(h, tenantId, "reader", ["memory:read", "memory:write:decisions"]);
    const res = await h.call("DELETE", `/memory/facts/${fact.id}`, { token: reader });
    await expectProblem(res, 403, "forbidden");
    const { body } = await h.json("GET", `/admin/audit/denials/${tenantId}`, { token: h.adminToken });
    expect(body.denials[0]).toMatchObject({
      method: "DELETE",
      path: `/memory/facts/${fact.id}`,
      permission: "memory:write:facts",
    });
    expect((await h.json("GET", `/memory/facts/${fact.id}`, { token })).body.expired_at).toBeNull();
  });

  test("unknown id → 404, another category's id → 404, malformed → 422, the operator → 403", async () => {
    const fact = await write("facts", { content: `mine ${Math.random()}` });
    await expectProblem(await h.call("DELETE", "/memory/facts/00000000", { token }), 404, "not_found");
    await expectProblem(await h.call("DELETE", `/memory/decisions/${fact.id}`, { token }), 404, "not_found");
    await expectProblem(
      await h.call("DELETE", "/memory/facts/..%2F..%2Fx", { token }),
      422,
      "validation_failed",
    );
    await expectProblem(
      await h.call("DELETE", `/memory/facts/${fact.id}`, { token: h.adminToken }),
      403,
      "forbidden",
    );
  });

  test("another tenant cannot retract it (404: it does not exist there)", async () => {
    const fact = await write("facts", { content: `isolated ${Math.random()}` });
    const other = await h.createTenant();
    await expectProblem(
      await h.call("DELETE", `/memory/facts/${fact.id}`, { token: other.token }),
      404,
      "not_found",
    );
  });
});

describe("GET /memory/{category}/{sha8}/history", () => {
  test("created, superseded by, corrected by, resolved by and retracted, with versions in order", async () => {
    const v1 = await write("decisions", {
      content: `price ${Math.random()}`,
      valid_from: iso(clock.now() - 3000),
    });
    clock.advance(1000);
    const v2 = await write("decisions", {
      content: "price v2",
      supersedes: v1.id,
      valid_from: iso(clock.now()),
    });
    clock.advance(1000);
    const v3 = await write("decisions", { content: "price v2, fixed", corrects: v2.id });
    clock.advance(1000);
    const outcome = await write("outcomes", { content: "accepted", decision_id: v3.id, result: "success" });
    clock.advance(1000);
    await h.json("DELETE", `/memory/decisions/${v3.id}`, { token });
    const first = await history("decisions", v1.id);
    expect(first.versions.map((v: { id: string }) => v.id)).toEqual([v1.id, v2.id, v3.id]);
    expect(first.events.map((e: { type: string; related?: string }) => [e.type, e.related])).toEqual([
      ["created", undefined],
      ["superseded_by", v2.id],
    ]);
    const middle = await history("decisions", v2.id);
    expect(middle.events.map((e: { type: string; related?: string }) => [e.type, e.related])).toEqual([
      ["created", undefined],
      ["supersedes", v1.id],
      ["corrected_by", v3.id],
    ]);
    const last = await history("decisions", v3.id);
    expect(last).toMatchObject({ id: v3.id, category: "decision", erased_at: null });
    expect(
      last.events.map((e: { type: string; related?: string; by: string }) => [e.type, e.related, e.by]),
    ).toEqual([
      ["created", undefined, "tenant-admin"],
      ["corrects", v2.id, "tenant-admin"],
      ["resolved_by", outcome.id, "tenant-admin"],
      ["retracted", undefined, "tenant-admin"],
    ]);
    const times = last.events.map((e: { at: string }) => e.at);
    expect(times).toEqual([...times].sort());
    expect(last.versions.at(-1)).toMatchObject({ id: v3.id, expired_at: times.at(-1) });
    const resolved = await history("outcomes", outcome.id);
    expect(resolved.events.map((e: { type: string }) => e.type)).toEqual(["created", "resolves"]);
  });

  test("a connector's entries name the connector as their actor", async () => {
    setSecrets(h, tenantId, paymentsSender.secrets);
    const url = `${BASE}/webhooks/payments/${tenantId}`;
    const body = stripeEvent("invoice.payment_failed", { id: "in_h1", number: "INV-1", customer: "cus_h" });
    const signed = await paymentsSender.sign(body, { now: clock.now(), url });
    const res = await h.json("POST", `/webhooks/payments/${tenantId}`, {
      raw: signed.body,
      headers: signed.headers,
    });
    expect(res.status).toBe(200);
    const [id] = res.body.entries;
    const trail = await history("exceptions", id);
    expect(trail.events).toEqual([{ type: "created", at: iso(clock.now()), by: "connector:payments" }]);
  });

  test("needs memory:read for the category; unknown → 404", async () => {
    const fact = await write("facts", { content: `secret history ${Math.random()}` });
    const blind = await tokenWithRole(h, tenantId, "blind", ["memory:read:decisions"]);
    await expectProblem(
      await h.call("GET", `/memory/facts/${fact.id}/history`, { token: blind }),
      403,
      "forbidden",
    );
    await expectProblem(await h.call("GET", "/memory/facts/00000000/history", { token }), 404, "not_found");
  });
});

describe("through a real listening server", () => {
  test("retract, then history; without permission 403 (audited); unknown 404", async () => {
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
    try {
      const call = async (method: string, path: string, as: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
          method,
          headers: { authorization: `Bearer ${as}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const fact = await call("POST", "/memory/facts", token, { content: `over tcp ${Math.random()}` });
      expect(fact.status).toBe(201);
      const reader = await tokenWithRole(h, tenantId, "tcp_reader", ["memory:read"]);
      expect((await call("DELETE", `/memory/facts/${fact.body.id}`, reader)).status).toBe(403);
      const { body } = await h.json("GET", `/admin/audit/denials/${tenantId}`, { token: h.adminToken });
      expect(body.denials[0]).toMatchObject({ method: "DELETE", path: `/memory/facts/${fact.body.id}` });
      const retracted = await call("DELETE", `/memory/facts/${fact.body.id}`, token);
      expect({ status: retracted.status, expired: retracted.body.expired_at !== null }).toEqual({
        status: 200,
        expired: true,
      });
      const trail = await call("GET", `/memory/facts/${fact.body.id}/history`, token);
      expect((trail.body.events as Array<{ type: string }>).map((e) => e.type)).toEqual([
        "created",
        "retracted",
      ]);
      expect((await call("DELETE", "/memory/facts/0badbeef", token)).status).toBe(404);
      expect((await call("GET", "/memory/facts/0badbeef/history", token)).status).toBe(404);
    } finally {
      server.stop(true);
    }
  });
});
