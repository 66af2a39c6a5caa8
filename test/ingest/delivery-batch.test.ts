/**
 * One delivery, one write set (issue 35): a webhook delivery's events are written through the
 * vault's batch path in one write set, one transaction, keeping what the per-event path keeps:
 * dedupe per event (inside a delivery and across redeliveries), a dead letter per failing event,
 * the delivery log's record per event, and each event seeing the ones before it. Write sets are
 * counted by the vault's own metric (`vault_write_set_entries`: one observation per write set).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { admin, deliver, fact, type Row, warehouseTenant } from "../helpers/webhook-ops.ts";
import { deadLetters, type MarketingEvent, marketingV1, setSecrets } from "../helpers/webhooks.ts";
import { scrape } from "../telemetry/scrape.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Write sets the vaults queued so far. */
async function writeSets(): Promise<number> {
  return (await scrape(h)).value("memory_runtime_vault_write_set_entries");
}

/** Write sets queued by `work` (nothing else writes meanwhile: the harness is this file's own). */
async function counted<T>(work: () => Promise<T>): Promise<{ result: T; sets: number }> {
  const before = await writeSets();
  const result = await work();
  return { result, sets: (await writeSets()) - before };
}

const rows = (prefix: string, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => fact(`${prefix}-${i}`, `fact ${i} of ${prefix}`));

async function logOf(tenantId: string) {
  const { status, body } = await admin(h, "GET", `/admin/webhooks/deliveries/${tenantId}?limit=500`);
  expect(status).toBe(200);
  return body.deliveries as Array<{
    event_id: string;
    outcome: string;
    entries: string[];
    request_id: string;
  }>;
}

function outcomes(log: Array<{ outcome: string; request_id: string }>, requestId: string) {
  const counts: Record<string, number> = {};
  for (const r of log.filter((r) => r.request_id === requestId))
    counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

describe("a webhook delivery is one write set", () => {
  test("100 events: one write set, 100 entries, 100 log records", async () => {
    const t = await warehouseTenant(h);
    const { result, sets } = await counted(() =>
      deliver(h, t.id, rows("hundred", 100), { requestId: "req-100" }),
    );
    expect(result.status).toBe(200);
    expect(result.body.accepted).toBe(100);
    expect(result.body.entries).toHaveLength(100);
    expect(sets).toBe(1);
    // Answered after the commit: every entry reads back at once.
    const { body } = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
    expect(body.items).toHaveLength(100);
    expect(outcomes(await logOf(t.id), "req-100")).toEqual({ accepted: 100 });
  });

  test("a redelivery writes no entry, and is logged as 100 duplicates in one write set", async () => {
    const t = await warehouseTenant(h);
    const first = await deliver(h, t.id, rows("again", 100), { requestId: "req-first" });
    expect(first.body.accepted).toBe(100);
    const { result, sets } = await counted(() =>
      deliver(h, t.id, rows("again", 100), { requestId: "req-again" }),
    );
    expect(result.body).toMatchObject({ accepted: 0, duplicates: 100, entries: [], dead_lettered: [] });
    expect(sets).toBe(1);
    const { body } = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
    expect(body.items).toHaveLength(100);
    expect(outcomes(await logOf(t.id), "req-again")).toEqual({ duplicate: 100 });
  });

  test("the same event id twice in one delivery: the second is a duplicate", async () => {
    const t = await warehouseTenant(h);
    const twice = [fact("same", "the one fact"), fact("other"), fact("same", "the one fact, again")];
    const { body } = await deliver(h, t.id, twice, { requestId: "req-twice" });
    expect(body).toMatchObject({ accepted: 2, duplicates: 1, dead_lettered: [] });
    const facts = (await h.json("GET", "/memory/facts?limit=500", { token: t.token })).body.items;
    expect(facts.map((f: { content: string }) => f.content).sort()).toEqual([
      "fact of other",
      "the one fact",
    ]);
    expect(outcomes(await logOf(t.id), "req-twice")).toEqual({ accepted: 2, duplicate: 1 });
  });

  test("one bad event of 100 is dead-lettered, the other 99 commit, in one write set", async () => {
    const t = await warehouseTenant(h);
    const batch = rows("mixed", 100);
    // A relationship row naming nobody fails its mapping: that event alone is a dead letter.
    batch[37] = { event_id: "mixed-bad", kind: "relationship", content: "nobody to nobody" };
    const { result, sets } = await counted(() => deliver(h, t.id, batch, { requestId: "req-mixed" }));
    expect(result.body.accepted).toBe(99);
    expect(result.body.dead_lettered).toEqual(["mixed-bad"]);
    expect(sets).toBe(1);
    expect((await deadLetters(h, t.id)).map((d) => d.event_id)).toEqual(["mixed-bad"]);
    expect(outcomes(await logOf(t.id), "req-mixed")).toEqual({ accepted: 99, dead_lettered: 1 });
    // Delivered again: 99 duplicates, and the dead letter stays one (its event is deduped too).
    const again = await deliver(h, t.id, batch, { requestId: "req-mixed-again" });
    expect(again.body).toMatchObject({ accepted: 0, duplicates: 100 });
  });
});

describe("order within a delivery", () => {
  const APP_ID = "4242";
  const T0 = Date.now() - 3600_000;
  const contact = (eventId: number, occurredAt: number, firstname: string): MarketingEvent => ({
    eventId,
    appId: Number(APP_ID),
    portalId: 62515,
    occurredAt,
    subscriptionType: "contact.creation",
    objectId: 777,
    properties: { firstname, lastname: "Lovelace", company: "Analytical Engines" },
  });

  test("a create then an update of the same object in one delivery ends in the updated state", async () => {
    const { tenant_id, token } = await h.createTenant();
    const secret = "mkt-secret-of-the-batch-test";
    setSecrets(h, tenant_id, { MARKETING_CRM_CLIENT_SECRET: secret, MARKETING_CRM_APP_ID: APP_ID });
    const body = JSON.stringify([contact(1, T0, "Ada"), contact(2, T0 + 60_000, "Augusta")]);
    const { result, sets } = await counted(() =>
      h.json("POST", `/webhooks/marketing_crm/${tenant_id}`, {
        raw: body,
        headers: {
          "content-type": "application/json",
          "x-marketingcrm-signature": marketingV1(secret, body),
        },
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body.accepted).toBe(2);
    expect(sets).toBe(1);
    const [first, second] = result.body.entries as string[];
    const later = (await h.json("GET", `/memory/relationships/${second}`, { token })).body;
    expect(later.content).toContain("Augusta");
    expect(later.supersedes).toBe(first);
    const earlier = (await h.json("GET", `/memory/relationships/${first}`, { token })).body;
    expect(earlier.valid_to).not.toBeNull();
  });
});
