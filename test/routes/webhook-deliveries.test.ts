/**
 * The delivery log (docs/webhook-operations.md#the-delivery-log):
 * GET /admin/webhooks/deliveries/{tenant_id}?source=&event_id=&outcome=&from=&to=&limit=&cursor=,
 * fed by real signed deliveries on a manual clock.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { admin, deliver, fact, warehouseTenant } from "../helpers/webhook-ops.ts";

let h: Harness;
const clock = new ManualClock(Date.UTC(2026, 10, 21, 10, 0, 0));
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

interface Record {
  event_id: string;
  source: string;
  event_type: string;
  received_at: string;
  outcome: string;
  entries: string[];
  request_id: string | null;
  via: string;
}

async function page(tenantId: string, query = "") {
  const { status, body } = await admin(h, "GET", `/admin/webhooks/deliveries/${tenantId}${query}`);
  expect(status).toBe(200);
  return body as { deliveries: Record[]; next_cursor: string | null };
}

/** A tenant with one of each outcome, a second apart: accepted, duplicate, ignored, dead_lettered. */
async function tenantWithHistory() {
  const t = await warehouseTenant(h);
  const sent = await deliver(h, t.id, [fact("a-1", "the first fact")], { requestId: "req-accepted" });
  expect(sent.body.accepted).toBe(1);
  clock.advance(1000);
  await deliver(h, t.id, [fact("a-1", "the first fact")], { requestId: "req-duplicate" });
  clock.advance(1000);
  await deliver(h, t.id, [{ event_id: "odd", kind: "memo", content: "no such category" }]);
  clock.advance(1000);
  await deliver(h, t.id, [{ event_id: "bad", kind: "relationship", content: "nobody to nobody" }]);
  clock.advance(1000);
  return { ...t, entry: sent.body.entries[0] as string };
}

describe("GET /admin/webhooks/deliveries/{tenant_id}", () => {
  test("each event's outcome, newest first, with its entries, its request id and no body", async () => {
    const t = await tenantWithHistory();
    const { deliveries, next_cursor } = await page(t.id);
    expect(next_cursor).toBeNull();
    expect(deliveries.map((d) => `${d.event_id}:${d.outcome}`)).toEqual([
      "bad:dead_lettered",
      "odd:ignored",
      "a-1:duplicate",
      "a-1:accepted",
    ]);
    const accepted = deliveries[3]!;
    expect(accepted).toEqual({
      event_id: "a-1",
      source: "warehouse",
      event_type: "fact",
      received_at: new Date(clock.now() - 4000).toISOString(),
      outcome: "accepted",
      entries: [t.entry],
      request_id: "req-accepted",
      via: "delivery",
    });
    expect(deliveries[2]).toMatchObject({ request_id: "req-duplicate", entries: [] });
    expect(JSON.stringify(deliveries)).not.toContain("the first fact");
  });

  test("filters: source, event_id, outcome, from and to (inclusive, on received_at)", async () => {
    const t = await tenantWithHistory();
    const start = clock.now() - 4000;
    const ids = async (q: string) =>
      (await page(t.id, q)).deliveries.map((d) => `${d.event_id}:${d.outcome}`);
    expect(await ids("?outcome=duplicate")).toEqual(["a-1:duplicate"]);
    expect(await ids("?event_id=a-1")).toEqual(["a-1:duplicate", "a-1:accepted"]);
    expect(await ids("?source=payments")).toEqual([]);
    expect(await ids("?source=warehouse&outcome=ignored")).toEqual(["odd:ignored"]);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await ids(`?from=${iso(start + 1000)}&to=${iso(start + 2000)}`)).toEqual([
      "odd:ignored",
      "a-1:duplicate",
    ]);
    expect(await ids(`?to=${iso(start)}`)).toEqual(["a-1:accepted"]);
    // Any RFC 3339 offset.
    expect(await ids(`?from=${encodeURIComponent("2099-01-01T01:00:00+01:00")}`)).toEqual([]);
  });

  test("pages by cursor: every record once, in order, while new ones arrive", async () => {
    const t = await warehouseTenant(h);
    for (let i = 0; i < 7; i++) {
      await deliver(h, t.id, [fact(`p-${i}`)]);
      if (i % 2 === 0) clock.advance(1); // several records in one millisecond, and some apart
    }
    const seen: string[] = [];
    let cursor: string | null = "";
    for (let round = 0; round < 10 && cursor !== null; round++) {
      const q: string = `?limit=3${cursor ? `&cursor=${cursor}` : ""}`;
      const body = await page(t.id, q);
      seen.push(...body.deliveries.map((d) => d.event_id));
      cursor = body.next_cursor;
      if (round === 0) await deliver(h, t.id, [fact("late")]); // newer than the cursor: not in these pages
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(["p-6", "p-5", "p-4", "p-3", "p-2", "p-1", "p-0"]);
  });

  test("one tenant's log holds none of another's", async () => {
    const a = await tenantWithHistory();
    const b = await warehouseTenant(h);
    expect((await page(b.id)).deliveries).toEqual([]);
    expect((await page(a.id)).deliveries).toHaveLength(4);
  });

  test("bad input is a 422; an unknown or malformed tenant a 404; a tenant's own token a 403", async () => {
    const t = await warehouseTenant(h);
    const path = `/admin/webhooks/deliveries/${t.id}`;
    const bad = [
      "?limit=0",
      "?limit=1001",
      "?limit=abc",
      "?limit=1.5",
      "?from=yesterday",
      "?to=2026-02-30T00:00:00Z",
      "?from=2026-11-21T10:00:00Z&to=2026-11-20T10:00:00Z",
      "?outcome=exploded",
      "?source=no_such_source",
      "?cursor=not-a-cursor",
      `?cursor=${"x".repeat(129)}`,
      `?event_id=${"e".repeat(513)}`,
    ];
    for (const q of bad) {
      const { status, body } = await admin(h, "GET", path + q);
      expect({ q, status, code: body.code }).toEqual({ q, status: 422, code: "validation_failed" });
    }
    for (const tenant of ["01JDB2X6J3KQ5W8Z3M4N7P9R2S", "nope", "%2E%2E"]) {
      const { status } = await admin(h, "GET", `/admin/webhooks/deliveries/${tenant}`);
      expect(status).toBe(404);
    }
    expect((await h.json("GET", path, { token: t.token })).status).toBe(403);
    expect((await h.json("GET", path)).status).toBe(401);
  });
});
