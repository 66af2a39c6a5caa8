/**
 * POST /webhooks/{source}/{tenant_id} (CONTRACT §7, SOURCES.md) for `marketing_crm` and `data`,
 * black-box through app.handle with real signatures; plus the check order, hostile bodies,
 * size limits, dedupe and durability across a restart.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { catalogAuditRow } from "../fakes/data-events.ts";
import { unparseableBodies } from "../fakes/hostile-bodies.ts";
import { BASE, type Harness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import {
  deadLetters,
  enc,
  expectEntries,
  lazyBody,
  type MappedHarness,
  type MarketingEvent,
  marketingEventId,
  marketingV1,
  marketingV3,
  readEntry,
  setSecrets,
  startWithCrmMapping,
} from "../helpers/webhooks.ts";

let h: Harness;
let setup: MappedHarness;

beforeAll(async () => {
  setup = await startWithCrmMapping("mrt-webhooks-");
  h = setup.h;
});
afterAll(() => setup.close());

const APP_ID = "54321";
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

interface Tenant {
  id: string;
  token: string;
  secret: string;
}

function randomSecret(prefix: string): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

async function marketingTenant(secret = randomSecret("mkt")): Promise<Tenant> {
  const { tenant_id, token } = await h.createTenant();
  setSecrets(h, tenant_id, { MARKETING_CRM_CLIENT_SECRET: secret, MARKETING_CRM_APP_ID: APP_ID });
  return { id: tenant_id, token, secret };
}

async function dataTenant(): Promise<Tenant> {
  const { tenant_id, token } = await h.createTenant();
  const secret = randomSecret("data-token");
  setSecrets(h, tenant_id, { DATA_WEBHOOK_TOKEN: secret });
  return { id: tenant_id, token, secret };
}

let seq = 0;
const T0 = Date.now() - 24 * 3600_000;

function mev(type: string, extra: Partial<MarketingEvent> = {}): MarketingEvent {
  seq++;
  return {
    eventId: seq,
    subscriptionId: 12345,
    portalId: 62515,
    appId: Number(APP_ID),
    occurredAt: T0 + seq * 1000,
    subscriptionType: type,
    attemptNumber: 0,
    objectId: 9000 + seq,
    changeSource: "CRM",
    ...extra,
  };
}

function v1(t: Tenant, body: string | Uint8Array, extra: Record<string, string> = {}) {
  return h.call("POST", `/webhooks/marketing_crm/${t.id}`, {
    raw: body,
    headers: {
      "content-type": "application/json",
      "x-marketingcrm-signature": marketingV1(t.secret, body),
      ...extra,
    },
  });
}

async function v1Json(t: Tenant, body: string) {
  const res = await v1(t, body);
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(res.headers.get("x-request-id")).toBeTruthy();
  return JSON.parse(text);
}

/** `token: null` sends no Authorization header. */
function dataPost(t: Tenant, body: string | Uint8Array, token: string | null = t.secret) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return h.call("POST", `/webhooks/data/${t.id}`, { raw: body, headers });
}

async function dataJson(t: Tenant, body: unknown) {
  const res = await dataPost(t, JSON.stringify(body));
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  return JSON.parse(text);
}

// ── marketing_crm ───────────────────────────────────────────────────────────────────────────

describe("marketing_crm: signatures and mapping", () => {
  test("the SOURCES.md v1 test vector is accepted and becomes a relationship", async () => {
    const secret = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";
    const body =
      '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"occurredAt":1564113600000,"subscriptionType":"contact.creation","attemptNumber":0,"objectId":123,"changeSource":"CRM","changeFlag":"NEW","appId":54321}]';
    expect(marketingV1(secret, body)).toBe(
      "232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817de",
    );
    const t = await marketingTenant(secret);
    const summary = await v1Json(t, body);
    expect(summary).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [], ignored: 0 });
    expect(summary.entries).toHaveLength(1);
    expect(summary.entries[0]).toMatch(/^[0-9a-f]{8}$/);
    const [entry] = await expectEntries(h, t.token, summary.entries, "relationship", {
      system: "marketing_crm",
      event_id: "contact.creation:123:1564113600000:1",
      event_type: "contact.creation",
    });
    expect(entry!.tenant_id).toBe(t.id);
    expect(entry!.valid_from).toBe("2019-07-26T04:00:00.000Z");
  });

  test("v1 through the platform's own header name is accepted", async () => {
    const t = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation", { properties: { title: "Webinar" } })]);
    const res = await h.call("POST", `/webhooks/marketing_crm/${t.id}`, {
      raw: body,
      headers: { "content-type": "application/json", "x-hubspot-signature": marketingV1(t.secret, body) },
    });
    expect(res.status).toBe(200);
    const v3Body = JSON.stringify([mev("timeline.creation")]);
    const ts = String(Date.now());
    const path = `/webhooks/marketing_crm/${t.id}`;
    const v3 = await h.call("POST", path, {
      raw: v3Body,
      headers: {
        "content-type": "application/json",
        "x-hubspot-request-timestamp": ts,
        "x-hubspot-signature-v3": marketingV3(t.secret, "POST", `${BASE}${path}`, v3Body, ts),
      },
    });
    expect(v3.status).toBe(200);
  });

  test("every mapped type of a v3-signed delivery becomes its category", async () => {
    const t = await marketingTenant();
    const contact = mev("contact.creation", {
      properties: { firstname: "Ada", lastname: "Lovelace", email: "ada@example.com", company: "Analytical" },
    });
    const company = mev("company.creation", {
      properties: { name: "Analytical Engines", domain: "ae.example" },
    });
    const stage = mev("deal.propertyChange", {
      propertyName: "dealstage",
      propertyValue: "presentationscheduled",
      properties: { dealname: "Engine order" },
    });
    const won = mev("deal.propertyChange", {
      propertyName: "dealstage",
      propertyValue: "closedwon",
      properties: {
        dealname: "Big deal",
        amount: "12000.50",
        deal_currency_code: "EUR",
        closedate: "2026-11-20T00:00:00Z",
        contacts: "Ada,Charles",
      },
    });
    const lost = mev("deal.propertyChange", {
      propertyName: "dealstage",
      propertyValue: "closedlost",
      properties: { dealname: "Lost deal", closed_lost_reason: "budget" },
    });
    const timeline = mev("timeline.creation", { properties: { title: "Attended the webinar" } });
    const events = [contact, company, stage, won, lost, timeline];
    const body = JSON.stringify(events);
    const path = `/webhooks/marketing_crm/${t.id}?portal=62515`;
    const ts = String(Date.now());
    const res = await h.call("POST", path, {
      raw: body,
      headers: {
        "content-type": "application/json",
        "x-marketingcrm-signature-v3": marketingV3(t.secret, "POST", `${BASE}${path}`, body, ts),
        "x-marketingcrm-request-timestamp": ts,
      },
    });
    const text = await res.text();
    expect({ status: res.status, text }).toMatchObject({ status: 200 });
    const summary = JSON.parse(text);
    expect(summary).toMatchObject({ accepted: 6, duplicates: 0, dead_lettered: [], ignored: 0 });
    expect(summary.entries).toHaveLength(6);
    const categories = ["relationship", "relationship", "decision", "decision", "exception", "fact"];
    const read = [];
    for (const [i, ev] of events.entries()) {
      const [entry] = await expectEntries(h, t.token, [summary.entries[i]], categories[i]!, {
        system: "marketing_crm",
        event_id: marketingEventId(ev),
        event_type: ev.subscriptionType,
      });
      read.push(entry!);
    }
    expect(read[0]).toMatchObject({ subject: "Ada Lovelace", predicate: "works_at", object: "Analytical" });
    expect(read[1]!.subject).toBe("Analytical Engines");
    expect(read[2]!.stage).toBe("presentationscheduled");
    expect(read[3]).toMatchObject({ stage: "closed_won", amount: 12000.5, currency: "EUR" });
    expect(read[4]!.content).toContain("budget");
    expect(read[5]!.content).toContain("Attended the webinar");
  });

  test("v3 honours X-Forwarded-Proto and X-Forwarded-Host", async () => {
    const t = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation")]);
    const ts = String(Date.now());
    const uri = `https://memory.example.com/webhooks/marketing_crm/${t.id}`;
    const headers = {
      "content-type": "application/json",
      "x-forwarded-proto": "https",
      "x-forwarded-host": "memory.example.com",
      "x-marketingcrm-request-timestamp": ts,
      "x-marketingcrm-signature-v3": marketingV3(t.secret, "POST", uri, body, ts),
    };
    const ok = await h.call("POST", `/webhooks/marketing_crm/${t.id}`, { raw: body, headers });
    expect(ok.status).toBe(200);
    // The same signature without the proxy headers names another URI: refused.
    const { "x-forwarded-proto": _p, "x-forwarded-host": _h, ...direct } = headers;
    const res = await h.call("POST", `/webhooks/marketing_crm/${t.id}`, { raw: body, headers: direct });
    await expectProblem(res, 401, "unauthorized");
  });

  test("v3 refuses a stale timestamp, a bad signature and a missing timestamp", async () => {
    const t = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation")]);
    const uri = `${BASE}/webhooks/marketing_crm/${t.id}`;
    const send = (headers: Record<string, string>) =>
      h.call("POST", `/webhooks/marketing_crm/${t.id}`, {
        raw: body,
        headers: { "content-type": "application/json", ...headers },
      });
    const stale = String(Date.now() - 6 * 60_000);
    await expectProblem(
      await send({
        "x-marketingcrm-request-timestamp": stale,
        "x-marketingcrm-signature-v3": marketingV3(t.secret, "POST", uri, body, stale),
      }),
      401,
      "unauthorized",
    );
    const now = String(Date.now());
    await expectProblem(
      await send({
        "x-marketingcrm-request-timestamp": now,
        "x-marketingcrm-signature-v3": marketingV3("another-secret", "POST", uri, body, now),
      }),
      401,
      "unauthorized",
    );
    await expectProblem(
      await send({ "x-marketingcrm-signature-v3": marketingV3(t.secret, "POST", uri, body, now) }),
      401,
      "unauthorized",
    );
    // Signed over other bytes than those sent.
    await expectProblem(
      await send({
        "x-marketingcrm-request-timestamp": now,
        "x-marketingcrm-signature-v3": marketingV3(t.secret, "POST", uri, `${body} `, now),
      }),
      401,
      "unauthorized",
    );
  });

  test("v1: a bad, foreign or missing signature is a 401 problem", async () => {
    const t = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation")]);
    const path = `/webhooks/marketing_crm/${t.id}`;
    const cases: Record<string, string>[] = [
      {},
      { "x-marketingcrm-signature": "" },
      { "x-marketingcrm-signature": "0".repeat(64) },
      { "x-marketingcrm-signature": marketingV1("another-secret", body) },
      { "x-marketingcrm-signature": marketingV1(t.secret, `${body}\n`) },
      { "x-marketingcrm-signature": marketingV1(t.secret, body).slice(0, 63) },
    ];
    for (const headers of cases) {
      const res = await h.call("POST", path, {
        raw: body,
        headers: { "content-type": "application/json", ...headers },
      });
      const problem = await expectProblem(res, 401, "unauthorized");
      expect(JSON.stringify(problem)).not.toContain(t.secret);
    }
    expect(await deadLetters(h, t.id)).toEqual([]);
  });

  test("another tenant's secret does not open this tenant's endpoint; v3 present means v3 decides", async () => {
    const a = await marketingTenant();
    const b = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation")]);
    await expectProblem(await v1({ ...b, secret: a.secret }, body), 401, "unauthorized");
    // A valid v1 next to an invalid v3 is refused: v3 is used whenever it is present.
    const now = String(Date.now());
    const res = await v1(b, body, {
      "x-marketingcrm-request-timestamp": now,
      "x-marketingcrm-signature-v3": marketingV3(
        "wrong",
        "POST",
        `${BASE}/webhooks/marketing_crm/${b.id}`,
        body,
        now,
      ),
    });
    await expectProblem(res, 401, "unauthorized");
    const d1 = await dataTenant();
    const d2 = await dataTenant();
    await expectProblem(await dataPost(d2, "{}", d1.secret), 401, "unauthorized");
  });

  test("an event of another appId makes the whole delivery a 401 and writes nothing", async () => {
    const t = await marketingTenant();
    const mine = mev("timeline.creation");
    const body = JSON.stringify([mine, mev("timeline.creation", { appId: 99999 })]);
    await expectProblem(await v1(t, body), 401, "unauthorized");
    // Nothing of it was kept: the same (valid) event alone is still new.
    const summary = await v1Json(t, JSON.stringify([mine]));
    expect(summary).toMatchObject({ accepted: 1, duplicates: 0 });
  });

  test("an unmapped type is dead-lettered while the others of the delivery are written", async () => {
    const t = await marketingTenant();
    const contact = mev("contact.creation", { properties: { email: "grace@example.com" } });
    const deleted = mev("contact.deletion");
    const other = mev("deal.propertyChange", { propertyName: "amount", propertyValue: "5" });
    const timeline = mev("timeline.creation");
    const summary = await v1Json(t, JSON.stringify([contact, deleted, other, timeline]));
    expect(summary).toMatchObject({
      accepted: 2,
      duplicates: 0,
      dead_lettered: [marketingEventId(deleted), marketingEventId(other)],
      ignored: 0,
    });
    expect(summary.entries).toHaveLength(2);
    await readEntry(h, t.token, "relationship", summary.entries[0]);
    await readEntry(h, t.token, "fact", summary.entries[1]);
    const dead = await deadLetters(h, t.id, "?status=dead");
    expect(dead.map((d) => d.event_id).sort()).toEqual(
      [marketingEventId(deleted), marketingEventId(other)].sort(),
    );
    for (const d of dead) expect(d.last_error).toStartWith("unmapped_event");
  });

  test("a second delivery of the same events writes nothing and counts duplicates", async () => {
    const t = await marketingTenant();
    const body = JSON.stringify([mev("timeline.creation"), mev("contact.creation"), mev("contact.deletion")]);
    const first = await v1Json(t, body);
    expect(first).toMatchObject({ accepted: 2, duplicates: 0 });
    expect(first.dead_lettered).toHaveLength(1);
    const second = await v1Json(t, body);
    expect(second).toEqual({ accepted: 0, entries: [], duplicates: 3, dead_lettered: [], ignored: 0 });
    // The same event again within one delivery is a duplicate too.
    const ev = mev("timeline.creation");
    const twice = await v1Json(t, JSON.stringify([ev, ev]));
    expect(twice).toMatchObject({ accepted: 1, duplicates: 1, dead_lettered: [], ignored: 0 });
    expect(twice.entries).toHaveLength(1);
    const list = await h.json("GET", "/memory/facts?limit=500", { token: t.token });
    expect(list.body.items).toHaveLength(2);
  });
});

// ── data ────────────────────────────────────────────────────────────────────────────────────

describe("data: bearer token and the four body kinds", () => {
  test("registry events become a decision (stage transition) and a fact (version created)", async () => {
    const t = await dataTenant();
    const transition = {
      event: "MODEL_VERSION_TRANSITIONED_STAGE",
      webhook_id: "wh-1",
      event_timestamp: 1763719200000,
      model_name: "churn",
      version: "7",
      from_stage: "Staging",
      to_stage: "Production",
      text: "Promoted after review",
    };
    const created = {
      event: "MODEL_VERSION_CREATED",
      webhook_id: "wh-1",
      event_timestamp: 1763719100000,
      model_name: "churn",
      version: "8",
    };
    const summary = await dataJson(t, [transition, created]);
    expect(summary).toMatchObject({ accepted: 2, duplicates: 0, dead_lettered: [], ignored: 0 });
    const [decision] = await expectEntries(h, t.token, [summary.entries[0]], "decision", {
      system: "data",
      event_id: "MODEL_VERSION_TRANSITIONED_STAGE:churn:7:1763719200000",
      event_type: "MODEL_VERSION_TRANSITIONED_STAGE",
    });
    expect(decision!.stage).toBe("Production");
    expect(decision!.content).toContain("Staging");
    await expectEntries(h, t.token, [summary.entries[1]], "fact", {
      system: "data",
      event_id: "MODEL_VERSION_CREATED:churn:8:1763719100000",
      event_type: "MODEL_VERSION_CREATED",
    });
  });

  test("a job run's success is a fact and its failure an exception", async () => {
    const t = await dataTenant();
    const job = { job_id: 42, name: "nightly-etl" };
    const ok = {
      event_type: "jobs.on_success",
      workspace_id: "ws-1",
      run: { run_id: 1001, start_time: 1763719000000, end_time: 1763719090000 },
      job,
    };
    const failed = {
      event_type: "jobs.on_failure",
      workspace_id: "ws-1",
      run: { run_id: 1002, state: { state_message: "Out of memory" }, end_time: 1763719200000 },
      job,
    };
    const s1 = await dataJson(t, ok);
    const [fact] = await expectEntries(h, t.token, s1.entries, "fact", {
      system: "data",
      event_id: "jobs.on_success:1001",
      event_type: "jobs.on_success",
    });
    expect(fact!.content).toContain("90");
    const s2 = await dataJson(t, failed);
    const [exception] = await expectEntries(h, t.token, s2.entries, "exception", {
      system: "data",
      event_id: "jobs.on_failure:1002",
      event_type: "jobs.on_failure",
    });
    expect(exception!.content).toContain("Out of memory");
    expect(exception!.status).toBe("open");
  });

  test("a triggered SQL alert is an exception, another state a fact", async () => {
    const t = await dataTenant();
    const alert = (state: string, timestamp: string) => ({
      event: "alert_state_change",
      timestamp,
      alert: {
        id: "al-9",
        name: "Revenue drop",
        state,
        condition: { op: "LESS_THAN", threshold: { value: { double_value: 1000 } } },
      },
      query: { id: "q-1", name: "daily revenue" },
    });
    const s1 = await dataJson(t, alert("TRIGGERED", "2026-11-21T09:00:00Z"));
    const [exception] = await expectEntries(h, t.token, s1.entries, "exception", {
      system: "data",
      event_id: "alert:al-9:2026-11-21T09:00:00Z",
      event_type: "alert_state_change",
    });
    expect(exception!.content).toContain("Revenue drop");
    const s2 = await dataJson(t, alert("OK", "2026-11-21T10:00:00Z"));
    await expectEntries(h, t.token, s2.entries, "fact", {
      system: "data",
      event_id: "alert:al-9:2026-11-21T10:00:00Z",
      event_type: "alert_state_change",
    });
  });

  test("catalog audit rows are facts keyed by their own event_id", async () => {
    const t = await dataTenant();
    const row = (id: string) => catalogAuditRow(id);
    const summary = await dataJson(t, [row("audit-1"), row("audit-2")]);
    expect(summary).toMatchObject({ accepted: 2, duplicates: 0, dead_lettered: [], ignored: 0 });
    const [a] = await expectEntries(h, t.token, [summary.entries[0]], "fact", {
      system: "data",
      event_id: "audit-1",
      event_type: "unityCatalog.getTable",
    });
    expect(a!.content).toContain("main.sales.orders");
    const again = await dataJson(t, [row("audit-2"), row("audit-3")]);
    expect(again).toMatchObject({ accepted: 1, duplicates: 1 });
  });

  test("a missing, foreign or malformed bearer token is a 401 problem", async () => {
    const t = await dataTenant();
    const body = JSON.stringify({
      event_id: "a",
      event_time: "2026-11-21T08:00:00Z",
      service_name: "unityCatalog",
      action_name: "x",
    });
    for (const auth of [undefined, "Bearer ", `Bearer ${t.secret}x`, `Basic ${t.secret}`, `Bearer wrong`]) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (auth !== undefined) headers.authorization = auth;
      const res = await h.call("POST", `/webhooks/data/${t.id}`, { raw: body, headers });
      const problem = await expectProblem(res, 401, "unauthorized");
      expect(JSON.stringify(problem)).not.toContain(t.secret);
    }
  });

  test("an unrecognised body is dead-lettered, not a 500", async () => {
    const t = await dataTenant();
    const summary = await dataJson(t, { message: 5, event: [], alert: "x", run: 3 });
    expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0 });
    expect(summary.dead_lettered).toHaveLength(1);
  });
});

// ── the check order of CONTRACT §7 ──────────────────────────────────────────────────────────

describe("check order: source, tenant, secrets, signature, body, size", () => {
  test("an unknown source is a 404, even for an unknown tenant or a tenant without secrets", async () => {
    const { tenant_id } = await h.createTenant();
    for (const path of [
      `/webhooks/nope/${tenant_id}`,
      `/webhooks/nope/${UNKNOWN_TENANT}`,
      "/webhooks/nope/not-a-ulid",
      `/webhooks/CRM/${tenant_id}`,
      `/webhooks/__proto__/${tenant_id}`,
      `/webhooks/constructor/${tenant_id}`,
    ]) {
      const res = await h.call("POST", path, { raw: "{}", headers: { "content-type": "application/json" } });
      await expectProblem(res, 404, "not_found");
    }
  });

  test("an unknown or malformed tenant is a 404 before the secrets are looked at", async () => {
    for (const source of ["marketing_crm", "data", "crm", "mail"]) {
      for (const tenant of [
        UNKNOWN_TENANT,
        "not-a-ulid",
        UNKNOWN_TENANT.toLowerCase(),
        `${UNKNOWN_TENANT}0`,
        "00000000000000000000000000",
        "..%2F..%2Fetc",
      ]) {
        const res = await h.call("POST", `/webhooks/${source}/${tenant}`, {
          raw: "[]",
          headers: { "content-type": "application/json" },
        });
        await expectProblem(res, 404, "not_found");
      }
    }
  });

  test("a missing secret is a 503 naming the variable, never a value, before the signature", async () => {
    const { tenant_id: t } = await h.createTenant();
    const value = randomSecret("app-id-value");
    h.env[`MARKETING_CRM_APP_ID_${t}`] = value;
    const body = JSON.stringify([mev("timeline.creation")]);
    const res = await h.call("POST", `/webhooks/marketing_crm/${t}`, {
      raw: "not json at all",
      headers: { "x-marketingcrm-signature": "bad" },
    });
    const problem = await expectProblem(res, 503, "secret_missing");
    expect(problem.detail).toContain(`MARKETING_CRM_CLIENT_SECRET_${t}`);
    expect(problem.detail).not.toContain(`MARKETING_CRM_APP_ID_${t}`);
    expect(JSON.stringify(problem)).not.toContain(value);
    // Empty counts as missing; with both gone both are named.
    h.env[`MARKETING_CRM_CLIENT_SECRET_${t}`] = "";
    h.env[`MARKETING_CRM_APP_ID_${t}`] = undefined;
    const both = await expectProblem(
      await h.call("POST", `/webhooks/marketing_crm/${t}`, { raw: body }),
      503,
      "secret_missing",
    );
    expect(both.detail).toContain(`MARKETING_CRM_CLIENT_SECRET_${t}`);
    expect(both.detail).toContain(`MARKETING_CRM_APP_ID_${t}`);
    // data and crm name theirs.
    const data = await expectProblem(
      await h.call("POST", `/webhooks/data/${t}`, { raw: "{}" }),
      503,
      "secret_missing",
    );
    expect(data.detail).toContain(`DATA_WEBHOOK_TOKEN_${t}`);
    const crm = await expectProblem(
      await h.call("POST", `/webhooks/crm/${t}`, { raw: "<x/>" }),
      503,
      "secret_missing",
    );
    expect(crm.detail).toContain(`CRM_WEBHOOK_SECRET_${t}`);
    // Secrets are read at call time: once set, the same tenant is served without a restart.
    const secret = randomSecret("late");
    setSecrets(h, t, { MARKETING_CRM_CLIENT_SECRET: secret, MARKETING_CRM_APP_ID: APP_ID });
    const ok = await v1({ id: t, token: "", secret }, body);
    expect(ok.status).toBe(200);
  });

  test("a missing secret beats an oversized body (the body is not read)", async () => {
    const { tenant_id: t } = await h.createTenant();
    const lazy = lazyBody(8 * 1024 * 1024);
    const res = await h.app.handle(
      new Request(`${BASE}/webhooks/data/${t}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: lazy.stream,
        duplex: "half",
      } as RequestInit),
    );
    await expectProblem(res, 503, "secret_missing");
    expect(lazy.pulled()).toBeLessThan(1024 * 1024);
  });

  test("a bad signature beats an unparseable or oversized body", async () => {
    const t = await marketingTenant();
    const path = `/webhooks/marketing_crm/${t.id}`;
    for (const raw of ["{{{", "", enc(`[${"1,".repeat(1024 * 1024)}1]`)]) {
      const res = await h.call("POST", path, {
        raw,
        headers: { "x-marketingcrm-signature": "0".repeat(64) },
      });
      await expectProblem(res, 401, "unauthorized");
    }
    const d = await dataTenant();
    const res = await dataPost(d, "{{{", "wrong");
    await expectProblem(res, 401, "unauthorized");
  });

  test("a valid signature over an unparseable body is a 400; over a too large one a 413", async () => {
    const t = await marketingTenant();
    await expectProblem(await v1(t, "{{{"), 400, "bad_request");
    const big = JSON.stringify([
      mev("timeline.creation", { properties: { title: "x".repeat(2 * 1024 * 1024) } }),
    ]);
    await expectProblem(await v1(t, big), 413, "payload_too_large");
    const d = await dataTenant();
    const registry = {
      event: "MODEL_VERSION_CREATED",
      webhook_id: "w",
      event_timestamp: 1,
      model_name: "m",
      version: "1",
      text: "y".repeat(2 * 1024 * 1024),
    };
    await expectProblem(await dataPost(d, JSON.stringify(registry)), 413, "payload_too_large");
    // Nothing was written or dead-lettered by refused deliveries.
    expect(await deadLetters(h, t.id)).toEqual([]);
    expect(await deadLetters(h, d.id)).toEqual([]);
  });

  test("a body over 4 MiB is refused 413 without being read to its end", async () => {
    const t = await marketingTenant();
    const send = (declared?: string) => {
      const lazy = lazyBody(64 * 1024 * 1024);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "x-marketingcrm-signature": "0".repeat(64),
      };
      if (declared) headers["content-length"] = declared;
      const req = new Request(`${BASE}/webhooks/marketing_crm/${t.id}`, {
        method: "POST",
        headers,
        body: lazy.stream,
        duplex: "half",
      } as RequestInit);
      return { lazy, res: h.app.handle(req) };
    };
    const streamed = send();
    await expectProblem(await streamed.res, 413, "payload_too_large");
    expect(streamed.lazy.pulled()).toBeLessThan(5 * 1024 * 1024);
    const declared = send(String(64 * 1024 * 1024));
    await expectProblem(await declared.res, 413, "payload_too_large");
    expect(declared.lazy.pulled()).toBeLessThan(5 * 1024 * 1024);
  });
});

// ── hostile bodies with a valid signature ───────────────────────────────────────────────────

function hostile(): Record<string, Uint8Array> {
  return { ...unparseableBodies(), nulBytes: new Uint8Array(1024) };
}

describe("hostile bodies with a valid signature are 4xx, never 500", () => {
  test("marketing_crm", async () => {
    const t = await marketingTenant();
    const cases: Record<string, Uint8Array> = {
      ...hostile(),
      object: enc("{}"),
      arrayOfArrays: enc("[[]]"),
      arrayOfNumbers: enc("[1,2,3]"),
      wrongTypes: enc(
        `[{"eventId":{"a":1},"subscriptionType":7,"objectId":[],"occurredAt":"x","appId":${APP_ID}}]`,
      ),
      badEventId: enc(
        `[{"eventId":-1,"subscriptionType":"contact.creation","objectId":1,"occurredAt":1,"appId":${APP_ID}}]`,
      ),
      tooMany: enc(JSON.stringify(Array.from({ length: 101 }, () => mev("timeline.creation")))),
      appIdNull: enc(
        '[{"eventId":1,"subscriptionType":"contact.creation","objectId":1,"occurredAt":1,"appId":null}]',
      ),
    };
    for (const [name, body] of Object.entries(cases)) {
      const res = await v1(t, body);
      const expected = name === "appIdNull" ? 401 : 400;
      const problem = await expectProblem(res, expected, expected === 401 ? "unauthorized" : "bad_request");
      expect({ name, detail: problem.detail.length > 0 }).toEqual({ name, detail: true });
    }
    expect(await deadLetters(h, t.id)).toEqual([]);
  });

  test("data", async () => {
    const t = await dataTenant();
    for (const [name, body] of Object.entries(hostile())) {
      const res = await dataPost(t, body);
      expect({ name, status: res.status }).toEqual({ name, status: 400 });
      await expectProblem(res, 400, "bad_request");
    }
    // Objects of the wrong shape are events the runtime owns: dead-lettered, answered 200.
    for (const body of ['[1, "x", null]', '{"event_type":"jobs.on_success","run":{"run_id":{"x":1}}}']) {
      const res = await dataPost(t, body);
      expect(res.status).toBe(200);
      const summary = (await res.json()) as { accepted: number; dead_lettered: string[] };
      expect(summary.accepted).toBe(0);
      expect(summary.dead_lettered.length).toBeGreaterThan(0);
    }
  });
});

// ── durability ──────────────────────────────────────────────────────────────────────────────

describe("entries and dedupe survive a restart", () => {
  test("a redelivery after a restart is still a duplicate", async () => {
    const m = await marketingTenant();
    const d = await dataTenant();
    const mBody = JSON.stringify([mev("timeline.creation"), mev("contact.deletion")]);
    const dBody = {
      event_type: "jobs.on_success",
      workspace_id: "ws",
      run: { run_id: 77 },
      job: { job_id: 1, name: "j" },
    };
    const m1 = await v1Json(m, mBody);
    const d1 = await dataJson(d, dBody);
    expect(m1).toMatchObject({ accepted: 1, duplicates: 0 });
    expect(d1).toMatchObject({ accepted: 1, duplicates: 0 });
    await h.restart();
    await readEntry(h, m.token, "fact", m1.entries[0]);
    await readEntry(h, d.token, "fact", d1.entries[0]);
    expect(await v1Json(m, mBody)).toEqual({
      accepted: 0,
      entries: [],
      duplicates: 2,
      dead_lettered: [],
      ignored: 0,
    });
    expect(await dataJson(d, dBody)).toEqual({
      accepted: 0,
      entries: [],
      duplicates: 1,
      dead_lettered: [],
      ignored: 0,
    });
    expect((await deadLetters(h, m.id)).map((x) => x.event_id)).toEqual([m1.dead_lettered[0]]);
  });
});
