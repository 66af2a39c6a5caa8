/**
 * Outbound event subscriptions, the admin side: POST/GET/DELETE /admin/subscriptions/{tenant_id},
 * enable, the delivery log; validation, access and the secret shown once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DELIVERY_LOG_LIMIT, MAX_SUBSCRIPTIONS } from "../../src/models/subscription.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const UNKNOWN_SUB = "sub_01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const URL_OK = "https://hooks.example.com/in";
const SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

let h: Harness;
let t: { tenant_id: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => {
  await h.close();
});

const path = (tenant = t.tenant_id, rest = "") => `/admin/subscriptions/${tenant}${rest}`;
const create = (body: unknown, tenant = t.tenant_id) =>
  h.json("POST", path(tenant), { token: h.adminToken, body });
const list = async (tenant = t.tenant_id) => {
  const res = await h.json("GET", path(tenant), { token: h.adminToken });
  expect(res.status).toBe(200);
  return res;
};

describe("creating a subscription", () => {
  test("201 with a generated whsec_ secret shown once; the list never shows it", async () => {
    const { status, body } = await create({ url: URL_OK, events: ["entry.created", "decision.resolved"] });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^sub_[0-9A-HJKMNP-TV-Z]{26}$/),
      url: URL_OK,
      events: ["entry.created", "decision.resolved"],
      status: "active",
      created_at: expect.stringMatching(/Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await list();
    expect(listed.body.subscriptions).toContainEqual({
      id: body.id,
      url: URL_OK,
      events: ["entry.created", "decision.resolved"],
      status: "active",
      created_at: body.created_at,
      consecutive_failures: 0,
      last_delivery_at: null,
      last_error: null,
      disabled_at: null,
      position: expect.any(Number),
    });
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(body.secret);
    expect(text).not.toContain(body.secret.slice(6));
    expect(text).not.toContain("secret");
  });

  test("a given secret is kept (the receiver verifies with it); the audit log records no secret", async () => {
    const { status, body } = await create({ url: URL_OK, events: ["entry.retracted"], secret: SECRET });
    expect(status).toBe(201);
    expect(body.secret).toBe(SECRET);
    const audit = await h.json("GET", "/admin/audit/events?limit=20", { token: h.adminToken });
    const created = audit.body.events.find(
      (e: { action: string; target: string }) => e.action === "subscription.created" && e.target === body.id,
    );
    expect(created).toMatchObject({
      sub: "operator",
      tenant_id: t.tenant_id,
      details: { secret_given: true },
    });
    expect(JSON.stringify(audit.body)).not.toContain(SECRET.slice(6));
  });

  test("a subscription starts at the newest change: the tenant's history is not sent", async () => {
    const u = await h.createTenant();
    await h.json("POST", "/memory/facts", { token: u.token, body: { content: "before the subscription" } });
    const { body } = await create({ url: URL_OK, events: ["entry.created"] }, u.tenant_id);
    const listed = await list(u.tenant_id);
    const sub = listed.body.subscriptions.find((s: { id: string }) => s.id === body.id);
    expect(sub.position).toBeGreaterThanOrEqual(1);
  });

  test("the URL must be https (http only for loopback), a real URL, without credentials: else 422", async () => {
    for (const url of [
      "http://example.com/hook",
      "ftp://example.com/hook",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "not a url",
      "",
      "https://user:pass@example.com/hook",
      `https://example.com/${"a".repeat(3000)}`,
    ]) {
      const res = await h.call("POST", path(), {
        token: h.adminToken,
        body: { url, events: ["entry.created"] },
      });
      await expectProblem(res, 422, "validation_failed");
    }
    const loopback = await create({ url: "http://127.0.0.1:9/hook", events: ["entry.created"] });
    expect(loopback.status).toBe(201);
  });

  test("a secret not of the form whsec_<base64 of 24–64 bytes> is a 422 that never quotes it", async () => {
    const b64 = (n: number) => Buffer.alloc(n, 3).toString("base64");
    for (const secret of [
      "plain-shared-secret-of-some-length",
      b64(32),
      "whsec_",
      "whsec_!!!!",
      `whsec_${b64(8)}`,
      `whsec_${b64(100)}`,
      `whsec_${b64(32)}%`,
    ]) {
      const res = await h.call("POST", path(), {
        token: h.adminToken,
        body: { url: URL_OK, events: ["entry.created"], secret },
      });
      const problem = await expectProblem(res, 422, "validation_failed");
      if (secret.length > 8) expect(JSON.stringify(problem)).not.toContain(secret);
    }
  });

  test("events must be a non-empty set of the subscribable types: else 422", async () => {
    for (const events of [
      [],
      ["entry.erased"],
      ["entry.created", "entry.created"],
      ["nope"],
      "entry.created",
      [{ type: "entry.created" }],
      null,
    ]) {
      const res = await h.call("POST", path(), { token: h.adminToken, body: { url: URL_OK, events } });
      await expectProblem(res, 422, "validation_failed");
    }
    const all = [
      "entry.created",
      "entry.superseded",
      "entry.corrected",
      "entry.retracted",
      "decision.resolved",
      "deadletter.created",
    ];
    expect((await create({ url: URL_OK, events: all })).status).toBe(201);
  });

  test("hostile bodies are 4xx, never a 500", async () => {
    const bodies: Array<{ raw?: string; body?: unknown; status: number }> = [
      { raw: "{", status: 400 },
      { raw: "", status: 422 },
      { body: [], status: 422 },
      { body: "string", status: 422 },
      { body: 42, status: 422 },
      { body: null, status: 422 },
      { body: { url: URL_OK, events: ["entry.created"], extra: 1 }, status: 422 },
      { body: { url: { toString: "x" }, events: ["entry.created"] }, status: 422 },
      { body: { url: URL_OK, events: ["entry.created"], secret: 12 }, status: 422 },
      { body: { url: URL_OK, events: ["entry.created"], secret: "x".repeat(5000) }, status: 422 },
      { body: { url: `https://a\u0000b.example/`, events: ["entry.created"] }, status: 422 },
      { body: { url: URL_OK, events: Array(10_000).fill("entry.created") }, status: 422 },
      {
        raw: '{"__proto__": {"admin": true}, "url": "https://x.example", "events": ["entry.created"]}',
        status: 422,
      },
    ];
    for (const b of bodies) {
      const res = await h.call("POST", path(), {
        token: h.adminToken,
        ...(b.raw !== undefined
          ? { raw: b.raw, headers: { "content-type": "application/json" } }
          : { body: b.body }),
      });
      expect({ b, status: res.status }).toEqual({ b, status: b.status });
    }
  });

  test(`at most ${MAX_SUBSCRIPTIONS} per tenant: the next one is a 409`, async () => {
    const u = await h.createTenant();
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++)
      expect((await create({ url: `${URL_OK}/${i}`, events: ["entry.created"] }, u.tenant_id)).status).toBe(
        201,
      );
    await expectProblem(
      await h.call("POST", path(u.tenant_id), {
        token: h.adminToken,
        body: { url: URL_OK, events: ["entry.created"] },
      }),
      409,
      "conflict",
    );
    expect((await list(u.tenant_id)).body.subscriptions).toHaveLength(MAX_SUBSCRIPTIONS);
  });
});

describe("access", () => {
  test("a tenant token is a 403 on every subscription route, even for its own tenant", async () => {
    const { body } = await create({ url: URL_OK, events: ["entry.created"] });
    const calls: Array<[string, string, unknown?]> = [
      ["POST", path(), { url: URL_OK, events: ["entry.created"] }],
      ["GET", path()],
      ["DELETE", path(t.tenant_id, `/${body.id}`)],
      ["POST", path(t.tenant_id, `/${body.id}/enable`), {}],
      ["GET", path(t.tenant_id, `/${body.id}/deliveries`)],
    ];
    for (const [method, p, b] of calls) {
      await expectProblem(await h.call(method, p, { token: t.token, body: b }), 403, "forbidden");
      await expectProblem(await h.call(method, p, { body: b }), 401, "unauthorized");
    }
    // Nothing happened.
    expect((await list()).body.subscriptions.map((s: { id: string }) => s.id)).toContain(body.id);
  });

  test("unknown or malformed tenant: 404 on every route", async () => {
    for (const tenant of [UNKNOWN_TENANT, "not-a-ulid", "..%2F..%2Fetc", "00000000000000000000000000"]) {
      await expectProblem(
        await h.call("POST", path(tenant), {
          token: h.adminToken,
          body: { url: URL_OK, events: ["entry.created"] },
        }),
        404,
        "not_found",
      );
      await expectProblem(await h.call("GET", path(tenant), { token: h.adminToken }), 404, "not_found");
      await expectProblem(
        await h.call("DELETE", path(tenant, `/${UNKNOWN_SUB}`), { token: h.adminToken }),
        404,
        "not_found",
      );
      await expectProblem(
        await h.call("GET", path(tenant, `/${UNKNOWN_SUB}/deliveries`), { token: h.adminToken }),
        404,
        "not_found",
      );
    }
  });
});

describe("deleting, enabling, the delivery log", () => {
  test("DELETE answers {deleted}; unknown or malformed ids are 404; it is audited", async () => {
    const { body } = await create({ url: URL_OK, events: ["entry.created"] });
    const del = await h.json("DELETE", path(t.tenant_id, `/${body.id}`), { token: h.adminToken });
    expect(del).toMatchObject({ status: 200, body: { deleted: body.id } });
    expect((await list()).body.subscriptions.map((s: { id: string }) => s.id)).not.toContain(body.id);
    for (const id of [body.id, UNKNOWN_SUB, "sub_x", "..", "%00", "a".repeat(300)])
      await expectProblem(
        await h.call("DELETE", path(t.tenant_id, `/${id}`), { token: h.adminToken }),
        404,
        "not_found",
      );
    const audit = await h.json("GET", "/admin/audit/events?limit=50", { token: h.adminToken });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({ action: "subscription.deleted", target: body.id, tenant_id: t.tenant_id }),
    );
  });

  test("enable: an active subscription stays as it is; unknown is 404; audited", async () => {
    const { body } = await create({ url: URL_OK, events: ["entry.created"] });
    const enabled = await h.json("POST", path(t.tenant_id, `/${body.id}/enable`), { token: h.adminToken });
    expect(enabled).toMatchObject({
      status: 200,
      body: { id: body.id, status: "active", consecutive_failures: 0 },
    });
    expect(JSON.stringify(enabled.body)).not.toContain(body.secret);
    await expectProblem(
      await h.call("POST", path(t.tenant_id, `/${UNKNOWN_SUB}/enable`), { token: h.adminToken }),
      404,
      "not_found",
    );
    const audit = await h.json("GET", "/admin/audit/events?limit=50", { token: h.adminToken });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({ action: "subscription.enabled", target: body.id }),
    );
  });

  test("the delivery log: empty at first; limit is 1–200 (else 422); unknown subscription 404", async () => {
    const { body } = await create({ url: URL_OK, events: ["entry.created"] });
    const log = await h.json("GET", path(t.tenant_id, `/${body.id}/deliveries`), { token: h.adminToken });
    expect(log).toMatchObject({ status: 200, body: { deliveries: [] } });
    for (const limit of ["0", "201", "abc", "-1", "1e3"])
      await expectProblem(
        await h.call("GET", path(t.tenant_id, `/${body.id}/deliveries?limit=${limit}`), {
          token: h.adminToken,
        }),
        422,
        "validation_failed",
      );
    await expectProblem(
      await h.call("GET", path(t.tenant_id, `/${UNKNOWN_SUB}/deliveries`), { token: h.adminToken }),
      404,
      "not_found",
    );
  });

  test(`the delivery log keeps the newest ${DELIVERY_LOG_LIMIT} records of each subscription`, async () => {
    const { body } = await create({ url: URL_OK, events: ["entry.created"] });
    const record = (n: number) => ({
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      webhook_id: `msg_${t.tenant_id}_${n}`,
      change_seq: n,
      type: "entry.created",
      attempt: 1,
      status: 200,
      outcome: "delivered" as const,
      duration_ms: 1,
    });
    const tenant = h.runtime.services.tenant(t.tenant_id);
    // Written as the delivery worker writes them, in two batches that cross the bound.
    for (const batch of [
      Array.from({ length: 150 }, (_, i) => record(i + 1)),
      Array.from({ length: 100 }, (_, i) => record(i + 151)),
    ])
      expect(
        (await tenant.ask({ type: "outbound.record", id: body.id, patch: {}, deliveries: batch })).found,
      ).toBe(true);
    const log = await h.json("GET", path(t.tenant_id, `/${body.id}/deliveries?limit=${DELIVERY_LOG_LIMIT}`), {
      token: h.adminToken,
    });
    expect(log.body.deliveries).toHaveLength(DELIVERY_LOG_LIMIT);
    expect(log.body.deliveries[0].change_seq).toBe(250);
    expect(log.body.deliveries.at(-1).change_seq).toBe(250 - DELIVERY_LOG_LIMIT + 1);
    const three = await h.json("GET", path(t.tenant_id, `/${body.id}/deliveries?limit=3`), {
      token: h.adminToken,
    });
    expect(three.body.deliveries.map((d: { change_seq: number }) => d.change_seq)).toEqual([250, 249, 248]);
    // A deleted subscription takes its log with it; a record for it finds nothing.
    await h.json("DELETE", path(t.tenant_id, `/${body.id}`), { token: h.adminToken });
    expect(
      (await tenant.ask({ type: "outbound.record", id: body.id, patch: {}, deliveries: [record(1)] })).found,
    ).toBe(false);
  });

  test("another tenant's subscription id is not found in this tenant", async () => {
    const u = await h.createTenant();
    const { body } = await create({ url: URL_OK, events: ["entry.created"] }, u.tenant_id);
    for (const [method, rest] of [
      ["DELETE", `/${body.id}`],
      ["POST", `/${body.id}/enable`],
      ["GET", `/${body.id}/deliveries`],
    ] as const)
      await expectProblem(
        await h.call(method, path(t.tenant_id, rest), { token: h.adminToken }),
        404,
        "not_found",
      );
    expect((await list(u.tenant_id)).body.subscriptions).toHaveLength(1);
  });
});
