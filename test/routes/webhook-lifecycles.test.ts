/**
 * Lifecycles through the webhook route with real signatures (docs/source-mappings.md,
 * "Lifecycles"): marketing_crm's closing stages end the deal's stage, a stage delivered late
 * takes its place in event time; and `status` is a filter of list, search and MCP's tools
 * ("open problems" in one call).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { helpdeskSender, ticketDetail, zendeskEvent } from "../fakes/senders/helpdesk.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import {
  type EntryView,
  type MarketingEvent,
  postMarketing,
  postSigned,
  readEntry,
  tenantWithSecrets,
} from "../helpers/webhooks.ts";

const APP_ID = "54321";
const SECRET = "mkt-lifecycle-secret";
const clock = new ManualClock(Date.parse("2026-12-01T00:00:00.000Z"));
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

const tenant = () =>
  tenantWithSecrets(
    h,
    { MARKETING_CRM_CLIENT_SECRET: SECRET, MARKETING_CRM_APP_ID: APP_ID },
    helpdeskSender.secrets,
  );

let eventSeq = 0;
const DAY = 86_400_000;
const T0 = Date.parse("2026-05-01T00:00:00.000Z");

/** A deal's stage change on `day` days after T0. */
function stage(deal: number, value: string, day: number): MarketingEvent {
  eventSeq++;
  return {
    eventId: eventSeq,
    portalId: 62515,
    appId: Number(APP_ID),
    occurredAt: T0 + day * DAY,
    subscriptionType: "deal.propertyChange",
    objectId: deal,
    propertyName: "dealstage",
    propertyValue: value,
    properties: { dealname: `Deal ${deal}` },
  };
}

interface Summary {
  entries: string[];
  dead_lettered: string[];
}

/** Posts marketing CRM events signed v3; answers the entry ids written, in order. */
async function deliver(tenantId: string, events: MarketingEvent[]): Promise<string[]> {
  const res = await postMarketing(h, SECRET, tenantId, events, clock.now());
  const summary = (await res.json()) as Summary;
  expect({ status: res.status, dead: summary.dead_lettered }).toEqual({ status: 200, dead: [] });
  return summary.entries;
}

async function helpdesk(tenantId: string, body: string): Promise<string> {
  const res = await postSigned(h, helpdeskSender, tenantId, body, clock.now());
  const summary = (await res.json()) as Summary;
  expect(res.status).toBe(200);
  return summary.entries[0]!;
}

const iso = (day: number) => new Date(T0 + day * DAY).toISOString();

describe("marketing_crm: a deal's stages in event time", () => {
  test("closed lost is still an exception, resolved, and the stage decision it ends gets its valid_to", async () => {
    const t = await tenant();
    const [qualified] = await deliver(t.tenant_id, [stage(701, "qualifiedtobuy", 1)]);
    const [lost] = await deliver(t.tenant_id, [stage(701, "closedlost", 5)]);
    const decision = await readEntry(h, t.token, "decision", qualified!);
    const exception = await readEntry(h, t.token, "exception", lost!);
    expect(decision).toMatchObject({ valid_to: iso(5), status: "resolved" });
    expect(exception).toMatchObject({ valid_from: iso(5), valid_to: null, status: "resolved" });
  });

  test("a stage retried after the next one takes its place: bounded by its neighbours, the newer stage stays current", async () => {
    const t = await tenant();
    const early = stage(702, "appointmentscheduled", 1);
    const late = stage(702, "qualifiedtobuy", 2);
    const newer = stage(702, "presentationscheduled", 3);
    const [a] = await deliver(t.tenant_id, [early]);
    const [c] = await deliver(t.tenant_id, [newer]);
    const [b] = await deliver(t.tenant_id, [late]);
    const read = async (id: string) => readEntry(h, t.token, "decision", id);
    expect((await read(a!)).valid_to).toBe(iso(2));
    expect((await read(b!)).valid_to).toBe(iso(3));
    expect((await read(c!)).valid_to).toBeNull();
    // Exactly one stage is valid now, the newest; a past date sees the late one.
    const now = await h.json("GET", "/memory/decisions?tag=deal", { token: t.token });
    expect(now.body.items.map((e: EntryView) => e.id)).toEqual([c]);
    const then = await h.json("GET", `/memory/decisions?tag=deal&valid_at=${iso(2.5)}`, { token: t.token });
    expect(then.body.items.map((e: EntryView) => e.id)).toEqual([b]);
  });

  test("a stage delivered after the deal was closed never reopens it", async () => {
    const t = await tenant();
    const [won] = await deliver(t.tenant_id, [stage(703, "closedwon", 6)]);
    const [stale] = await deliver(t.tenant_id, [stage(703, "contractsent", 4)]);
    expect(await readEntry(h, t.token, "decision", stale!)).toMatchObject({
      valid_to: iso(6),
      status: "resolved",
    });
    expect(await readEntry(h, t.token, "decision", won!)).toMatchObject({
      valid_to: null,
      status: "resolved",
    });
    const open = await h.json("GET", "/memory/decisions?status=open", { token: t.token });
    expect(open.body.items).toEqual([]);
  });
});

describe("status is a filter of list and search", () => {
  test("open problems in one call: what a ticket's solve resolved is left out, what is still open is found", async () => {
    const t = await tenant();
    const urgent = (id: string) =>
      zendeskEvent(
        "ticket.priority_changed",
        { current: "URGENT", previous: "HIGH" },
        ticketDetail({ id, priority: "URGENT" }),
      );
    const solvedTicket = await helpdesk(t.tenant_id, urgent("6001"));
    const openTicket = await helpdesk(t.tenant_id, urgent("6002"));
    await helpdesk(
      t.tenant_id,
      zendeskEvent(
        "ticket.status_changed",
        { current: "SOLVED", previous: "OPEN" },
        ticketDetail({ id: "6001", status: "SOLVED" }),
      ),
    );
    const written = await h.json("POST", "/memory/exceptions", {
      token: t.token,
      body: { content: "The nightly export keeps failing", severity: "high" },
    });
    expect(written.status).toBe(201);
    await h.json("POST", "/memory/facts", { token: t.token, body: { content: "A fact has no status" } });

    const list = async (status: string) =>
      (await h.json("GET", `/memory/exceptions?status=${status}`, { token: t.token })).body.items.map(
        (e: EntryView) => e.id,
      );
    expect((await list("open")).sort()).toEqual([openTicket, written.body.id].sort());
    expect(await list("resolved")).toEqual([solvedTicket]);

    const search = async (body: Record<string, unknown>) => {
      const res = await h.json("POST", "/memory/search", { token: t.token, body });
      expect(res.status).toBe(200);
      return res.body.results.map((r: { entry: EntryView }) => r.entry.id);
    };
    expect((await search({ status: "open" })).sort()).toEqual([openTicket, written.body.id].sort());
    expect(await search({ query: "urgent ticket", status: "open" })).toEqual([openTicket]);
    expect(await search({ query: "urgent ticket", status: "resolved" })).toEqual([solvedTicket]);
    expect(await search({ status: "open", categories: ["fact"] })).toEqual([]);
  });

  test("a status that is neither open nor resolved is a 422 problem", async () => {
    const t = await tenant();
    const listed = await h.call("GET", "/memory/exceptions?status=closed", { token: t.token });
    expect(listed.status).toBe(422);
    const searched = await h.call("POST", "/memory/search", { token: t.token, body: { status: "done" } });
    expect(searched.status).toBe(422);
  });
});
