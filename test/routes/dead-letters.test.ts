/**
 * Dead letters (CONTRACT §7): GET /admin/webhooks/dead-letters/{tenant_id} and
 * POST /admin/webhooks/replay/{tenant_id}/{event_id}, fed by real signed deliveries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE, type Harness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";
import {
  type CrmNote,
  crmSignature,
  type DeadLetterView,
  deadLetters,
  type MappedHarness,
  type MarketingEvent,
  marketingEventId,
  marketingV1,
  marketingV3,
  replay,
  replayRaw,
  SOAP_ACK,
  setSecrets,
  soapMessage,
  startWithCrmMapping,
} from "../helpers/webhooks.ts";

let h: Harness;
let setup: MappedHarness;

beforeAll(async () => {
  setup = await startWithCrmMapping("mrt-dead-");
  h = setup.h;
});
afterAll(() => setup.close());

const APP_ID = "777";
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

interface Secrets {
  marketing: string;
  data: string;
  crm: string;
}

/** A tenant with the secrets of all three sources set. */
async function tenant(): Promise<{ id: string; token: string; secrets: Secrets }> {
  const { tenant_id, token } = await h.createTenant();
  const secrets: Secrets = {
    marketing: `mkt-${crypto.randomUUID()}`,
    data: `data-${crypto.randomUUID()}`,
    crm: `crm-${crypto.randomUUID()}`,
  };
  setSecrets(h, tenant_id, {
    MARKETING_CRM_CLIENT_SECRET: secrets.marketing,
    MARKETING_CRM_APP_ID: APP_ID,
    DATA_WEBHOOK_TOKEN: secrets.data,
    CRM_WEBHOOK_SECRET: secrets.crm,
  });
  return { id: tenant_id, token, secrets };
}

let seq = 0;
function mev(type: string): MarketingEvent {
  seq++;
  return {
    eventId: seq,
    portalId: 1,
    appId: Number(APP_ID),
    occurredAt: Date.now() - 60_000 + seq,
    subscriptionType: type,
    objectId: 500 + seq,
  };
}

async function ok(res: Response): Promise<{
  accepted: number;
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
  ignored: number;
}> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  if (text === SOAP_ACK) return JSON.parse(res.headers.get("x-memory-summary")!);
  return JSON.parse(text);
}

function sendMarketingV1(
  t: { id: string; secrets: Secrets },
  events: MarketingEvent[],
  extra: Record<string, string> = {},
) {
  const body = JSON.stringify(events);
  return h.call("POST", `/webhooks/marketing_crm/${t.id}`, {
    raw: body,
    headers: {
      "content-type": "application/json",
      "x-marketingcrm-signature": marketingV1(t.secrets.marketing, body),
      ...extra,
    },
  });
}

function sendMarketingV3(t: { id: string; secrets: Secrets }, events: MarketingEvent[]) {
  const body = JSON.stringify(events);
  const ts = String(Date.now());
  const path = `/webhooks/marketing_crm/${t.id}`;
  return h.call("POST", path, {
    raw: body,
    headers: {
      "content-type": "application/json",
      "x-marketingcrm-request-timestamp": ts,
      "x-marketingcrm-signature-v3": marketingV3(t.secrets.marketing, "POST", `${BASE}${path}`, body, ts),
    },
  });
}

function sendData(t: { id: string; secrets: Secrets }, body: unknown, extra: Record<string, string> = {}) {
  return h.call("POST", `/webhooks/data/${t.id}`, {
    raw: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${t.secrets.data}`, ...extra },
  });
}

function sendCrm(t: { id: string; secrets: Secrets }, notes: CrmNote[], extra: Record<string, string> = {}) {
  const xml = soapMessage(notes);
  return h.call("POST", `/webhooks/crm/${t.id}`, {
    raw: xml,
    headers: { "content-type": "text/xml", "x-crm-signature": crmSignature(t.secrets.crm, xml), ...extra },
  });
}

const registryDeleted = (model: string, ts: number) => ({
  event: "MODEL_VERSION_DELETED",
  webhook_id: "wh",
  event_timestamp: ts,
  model_name: model,
  version: "1",
});

const FIELDS = [
  "event_id",
  "tenant_id",
  "source",
  "event_type",
  "received_at",
  "attempts",
  "last_error",
  "status",
  "payload",
];

describe("GET /admin/webhooks/dead-letters/{tenant_id}", () => {
  test("lists every source's dead letters with the contract's fields; headers hold no credential", async () => {
    const t = await tenant();
    const sneaky = {
      "x-api-key": "k",
      cookie: "session=abc",
      "x-forwarded-for": "203.0.113.9",
      "user-agent": "HubSpot Webhooks",
    };
    const m1 = mev("contact.deletion");
    const m3 = mev("deal.deletion");
    expect((await ok(await sendMarketingV1(t, [m1], sneaky))).dead_lettered).toEqual([marketingEventId(m1)]);
    expect((await ok(await sendMarketingV3(t, [m3]))).dead_lettered).toEqual([marketingEventId(m3)]);
    const d = registryDeleted("churn", 1763719200000);
    expect((await ok(await sendData(t, d, sneaky))).dead_lettered).toEqual([
      "MODEL_VERSION_DELETED:churn:1:1763719200000",
    ]);
    const note: CrmNote = { id: "04l5e0000099AAAA", type: "Invoice__c", fields: { Id: "a1", Name: "INV-1" } };
    expect((await ok(await sendCrm(t, [note], sneaky))).dead_lettered).toEqual([note.id]);

    const { status, body, res } = await h.json(
      "GET",
      `/admin/webhooks/dead-letters/${t.id}?status=dead&limit=100`,
      {
        token: h.adminToken,
      },
    );
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    const list = body.dead_letters as DeadLetterView[];
    expect(list).toHaveLength(4);
    const bySource = Object.fromEntries(list.map((x) => [x.event_id, x]));
    expect(bySource[marketingEventId(m1)]).toMatchObject({
      source: "marketing_crm",
      event_type: "contact.deletion",
    });
    expect(bySource[marketingEventId(m3)]).toMatchObject({
      source: "marketing_crm",
      event_type: "deal.deletion",
    });
    expect(bySource[`MODEL_VERSION_DELETED:churn:1:1763719200000`]).toMatchObject({
      source: "data",
      event_type: "MODEL_VERSION_DELETED",
    });
    expect(bySource[note.id]).toMatchObject({ source: "crm", event_type: "Invoice__c" });
    for (const x of list) {
      for (const field of FIELDS) expect(Object.hasOwn(x, field)).toBe(true);
      expect(x).toMatchObject({ tenant_id: t.id, attempts: 1, status: "dead" });
      expect(x.last_error).toStartWith("unmapped_event");
      expect(x.received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(x.payload).toBeTruthy();
      for (const name of Object.keys(x.headers ?? {})) {
        expect(name).not.toMatch(/authorization|signature|cookie|api-key|token|secret/i);
      }
    }
    // Newest first.
    const times = list.map((x) => x.received_at);
    expect([...times].sort().reverse()).toEqual(times);
    // No secret value anywhere in what the operator sees.
    const text = JSON.stringify(body);
    for (const secret of Object.values(t.secrets)) expect(text).not.toContain(secret);
    expect(text).not.toContain("session=abc");
  });

  test("status and limit filter; bad values are a 422", async () => {
    const t = await tenant();
    const events = [mev("a.b"), mev("c.d"), mev("e.f")];
    expect((await ok(await sendMarketingV1(t, events))).dead_lettered).toHaveLength(3);
    expect(await deadLetters(h, t.id, "?limit=2")).toHaveLength(2);
    expect(await deadLetters(h, t.id)).toHaveLength(3);
    expect(await deadLetters(h, t.id, "?status=replayed")).toEqual([]);
    expect(await deadLetters(h, t.id, "?status=dead&limit=1")).toHaveLength(1);
    for (const q of [
      "?status=DEAD",
      "?status=foo",
      "?status=",
      "?limit=0",
      "?limit=-1",
      "?limit=abc",
      "?limit=1001",
      "?limit=1.5",
    ]) {
      const res = await h.call("GET", `/admin/webhooks/dead-letters/${t.id}${q}`, { token: h.adminToken });
      await expectProblem(res, 422, "validation_failed");
    }
  });

  test("a tenant token is a 403, no token a 401, an unknown or malformed tenant a 404", async () => {
    const t = await tenant();
    await expectProblem(
      await h.call("GET", `/admin/webhooks/dead-letters/${t.id}`, { token: t.token }),
      403,
      "forbidden",
    );
    await expectProblem(await h.call("GET", `/admin/webhooks/dead-letters/${t.id}`), 401, "unauthorized");
    await expectProblem(
      await h.call("POST", `/admin/webhooks/replay/${t.id}/anything`, { token: t.token }),
      403,
      "forbidden",
    );
    for (const id of [UNKNOWN_TENANT, "not-a-ulid", UNKNOWN_TENANT.toLowerCase()]) {
      await expectProblem(
        await h.call("GET", `/admin/webhooks/dead-letters/${id}`, { token: h.adminToken }),
        404,
        "not_found",
      );
      await expectProblem(
        await h.call("POST", `/admin/webhooks/replay/${id}/x`, { token: h.adminToken }),
        404,
        "not_found",
      );
    }
  });

  test("one tenant never sees another's dead letters", async () => {
    const a = await tenant();
    const b = await tenant();
    const ev = mev("x.y");
    await ok(await sendMarketingV1(a, [ev]));
    expect(await deadLetters(h, b.id)).toEqual([]);
    await expectProblem(await replayRaw(h, b.id, marketingEventId(ev)), 404, "not_found");
  });

  test("dead letters of two sources with the same event_id are both kept", async () => {
    const t = await tenant();
    const d = registryDeleted("m", 5);
    const id = "MODEL_VERSION_DELETED:m:1:5";
    expect((await ok(await sendData(t, d))).dead_lettered).toEqual([id]);
    const note: CrmNote = { id, type: "Invoice__c", fields: { Id: "a2", Name: "INV-2" } };
    expect((await ok(await sendCrm(t, [note]))).dead_lettered).toEqual([id]);
    const list = await deadLetters(h, t.id);
    expect(list.map((x) => x.source).sort()).toEqual(["crm", "data"]);
  });
});

describe("POST /admin/webhooks/replay/{tenant_id}/{event_id}", () => {
  test("an unknown event id is a 404", async () => {
    const t = await tenant();
    for (const id of ["nope", "contact.creation:1:2:3", "%00", "x".repeat(600)]) {
      const res = await h.call("POST", `/admin/webhooks/replay/${t.id}/${id}`, { token: h.adminToken });
      await expectProblem(res, 404, "not_found");
    }
    // A delivered and written event is not a dead letter either.
    const written = mev("timeline.creation");
    expect((await ok(await sendMarketingV1(t, [written]))).accepted).toBe(1);
    await expectProblem(await replayRaw(h, t.id, marketingEventId(written)), 404, "not_found");
  });

  test("a replay that fails again answers dead with last_error and counts the attempt", async () => {
    const t = await tenant();
    const ev = mev("contact.deletion");
    const id = marketingEventId(ev);
    await ok(await sendMarketingV1(t, [ev]));
    for (const attempts of [2, 3]) {
      const { status, body } = await replay(h, t.id, id);
      expect(status).toBe(200);
      expect(body).toEqual({
        event_id: id,
        status: "dead",
        last_error: expect.stringContaining("unmapped_event"),
      });
      const [record] = await deadLetters(h, t.id);
      expect(record).toMatchObject({ event_id: id, attempts, status: "dead" });
    }
  });

  test("replay does not re-check the signature: it works with the source's secret gone", async () => {
    const t = await tenant();
    const note: CrmNote = { id: "04l5e00000RRRRRR", type: "Shipment__c", fields: { Id: "a3" } };
    await ok(await sendCrm(t, [note]));
    h.env[`CRM_WEBHOOK_SECRET_${t.id}`] = undefined;
    const { status, body } = await replay(h, t.id, note.id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ event_id: note.id, status: "dead" });
  });

  test("event ids with characters that need escaping in a path can be replayed", async () => {
    const t = await tenant();
    for (const model of ["churn model", "team/churn", "50%off"]) {
      const d = registryDeleted(model, 9);
      const id = `MODEL_VERSION_DELETED:${model}:1:9`;
      expect((await ok(await sendData(t, d))).dead_lettered).toEqual([id]);
      const { status, body } = await replay(h, t.id, id);
      expect({ model, status, event_id: body.event_id }).toEqual({ model, status: 200, event_id: id });
      expect(body.status).toBe("dead");
    }
  });

  test("a listed dead letter whose event id holds a control character can be replayed", async () => {
    const t = await tenant();
    // The data source builds registry ids from the body's fields: a tab in a model name stays.
    const id = "MODEL_VERSION_DELETED:churn\tv2:1:9";
    expect((await ok(await sendData(t, registryDeleted("churn\tv2", 9)))).dead_lettered).toEqual([id]);
    expect((await deadLetters(h, t.id)).map((x) => x.event_id)).toEqual([id]);
    const { status, body } = await replay(h, t.id, id);
    expect({ status, body }).toMatchObject({ status: 200, body: { event_id: id, status: "dead" } });
  });

  test("dead letters and their attempts survive a restart", async () => {
    const t = await tenant();
    const ev = mev("contact.deletion");
    const id = marketingEventId(ev);
    await ok(await sendMarketingV1(t, [ev]));
    await replay(h, t.id, id);
    await h.restart();
    const [record] = await deadLetters(h, t.id, "?status=dead");
    expect(record).toMatchObject({ event_id: id, attempts: 2, status: "dead", source: "marketing_crm" });
    expect(await ok(await sendMarketingV1(t, [ev]))).toEqual({
      accepted: 0,
      entries: [],
      duplicates: 1,
      dead_lettered: [],
      ignored: 0,
    });
  });
});
