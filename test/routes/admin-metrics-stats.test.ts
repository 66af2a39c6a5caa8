/**
 * `GET /admin/metrics/stats/{tenant_id}`: a tenant's dashboard counters as JSON (entries per
 * category, dead letters, writes per UTC day), black-box through the app; every answer is checked
 * against the OpenAPI document by the harness.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

/** 23 November 2026, 23:40 UTC: half an hour later is the next day, and tokens (1 h) still valid. */
const clock = new ManualClock(Date.UTC(2026, 10, 23, 23, 40, 0));
const HALF_HOUR = 30 * 60 * 1000;
const ZERO = { decision: 0, exception: 0, fact: 0, workflow: 0, relationship: 0, outcome: 0 };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

function stats(tenantId: string, query = "", token = h.adminToken) {
  return h.call("GET", `/admin/metrics/stats/${tenantId}${query}`, { token });
}

async function statsBody(tenantId: string, query = "") {
  const { status, body } = await h.json("GET", `/admin/metrics/stats/${tenantId}${query}`, {
    token: h.adminToken,
  });
  expect({ status, body }).toMatchObject({ status: 200 });
  return body;
}

async function write(token: string, plural: string, content: string): Promise<void> {
  const res = await h.call("POST", `/memory/${plural}`, { token, body: { content } });
  expect(res.status).toBe(201);
}

describe("GET /admin/metrics/stats/{tenant_id}", () => {
  test("entries per category, dead letters and writes per day over the default 30 days", async () => {
    const start = clock.now();
    const { tenant_id, token } = await h.createTenant();
    await write(token, "facts", "Acme has 40 seats");
    await write(token, "workflows", "Renewals go through legal");
    clock.advance(HALF_HOUR);
    await write(token, "facts", "Acme moved to Berlin");
    // An event no mapping knows: kept as a dead letter.
    const secret = `data-${crypto.randomUUID()}`;
    setSecrets(h, tenant_id, { DATA_WEBHOOK_TOKEN: secret });
    const delivery = await h.call("POST", `/webhooks/data/${tenant_id}`, {
      raw: JSON.stringify({
        event: "MODEL_VERSION_DELETED",
        webhook_id: "wh",
        event_timestamp: start,
        model_name: "churn",
        version: "1",
      }),
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    });
    expect(delivery.status).toBe(200);

    expect(await statsBody(tenant_id)).toEqual({
      tenant_id,
      from_day: "2026-10-26",
      to_day: "2026-11-24",
      entries_per_category: { ...ZERO, fact: 2, workflow: 1 },
      dead_letters: 1,
      writes_per_day: [
        { day: "2026-11-23", category: "fact", writes: 1 },
        { day: "2026-11-23", category: "workflow", writes: 1 },
        { day: "2026-11-24", category: "fact", writes: 1 },
      ],
    });
    // The days asked: writes outside them are left out, totals are not.
    expect(await statsBody(tenant_id, "?from_day=2026-11-24&to_day=2026-11-24")).toMatchObject({
      from_day: "2026-11-24",
      to_day: "2026-11-24",
      entries_per_category: { ...ZERO, fact: 2, workflow: 1 },
      writes_per_day: [{ day: "2026-11-24", category: "fact", writes: 1 }],
    });
    // to_day alone: the 30 days ending then.
    expect(await statsBody(tenant_id, "?to_day=2026-11-23")).toMatchObject({
      from_day: "2026-10-25",
      to_day: "2026-11-23",
      writes_per_day: [
        { day: "2026-11-23", category: "fact", writes: 1 },
        { day: "2026-11-23", category: "workflow", writes: 1 },
      ],
    });
  });

  test("a tenant that never wrote: zeros", async () => {
    const { tenant_id } = await h.createTenant();
    expect(await statsBody(tenant_id, "?from_day=2026-01-01&to_day=2026-12-31")).toEqual({
      tenant_id,
      from_day: "2026-01-01",
      to_day: "2026-12-31",
      entries_per_category: ZERO,
      dead_letters: 0,
      writes_per_day: [],
    });
  });

  test("no token → 401; a tenant token → 403, recorded as a denial", async () => {
    const { tenant_id, token } = await h.createTenant();
    await expectProblem(await h.call("GET", `/admin/metrics/stats/${tenant_id}`), 401, "unauthorized");
    await expectProblem(await stats(tenant_id, "", token), 403, "forbidden");
    const { body } = await h.json("GET", `/admin/audit/denials/${tenant_id}`, { token: h.adminToken });
    expect(body.denials[0]).toMatchObject({ path: `/admin/metrics/stats/${tenant_id}`, permission: "admin" });
  });

  test("unknown and malformed tenant ids → 404", async () => {
    for (const id of [
      "01JDB2X6J3KQ5W8Z3M4N7P9R2S",
      "00000000000000000000000000",
      "..%2F..%2Fetc",
      "01jdb2x6j3kq5w8z3m4n7p9r2s",
      "x".repeat(300),
    ])
      await expectProblem(await stats(id), 404, "not_found");
  });

  test("bad days → 422", async () => {
    const { tenant_id } = await h.createTenant();
    for (const query of [
      "from_day=yesterday",
      "to_day=2026-02-30",
      "to_day=2026-11-23T00:00:00Z",
      "from_day=2026-11-24&to_day=2026-11-23",
      // 367 days
      "from_day=2025-11-22&to_day=2026-11-23",
      `from_day=${"9".repeat(5000)}`,
      // The default from_day would fall before year 0000.
      "to_day=0000-01-15",
    ])
      await expectProblem(await stats(tenant_id, `?${query}`), 422, "validation_failed");
    // 366 days is the most.
    expect(await statsBody(tenant_id, "?from_day=2025-11-23&to_day=2026-11-23")).toMatchObject({
      from_day: "2025-11-23",
    });
  });
});
