/**
 * Events of one object at the same event time (docs/source-mappings.md, "Lifecycles"), through the
 * webhook route with real signatures: two marketing_crm stage changes of one deal with the same
 * `occurredAt` leave the same stage valid now whichever arrives first (ordered by their event ids,
 * never by arrival); the other ends where it begins, valid at no time.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import {
  type EntryView,
  type MarketingEvent,
  postMarketing,
  readEntry,
  tenantWithSecrets,
} from "../helpers/webhooks.ts";

const APP_ID = "54321";
const SECRET = "mkt-equal-times-secret";
const clock = new ManualClock(Date.parse("2026-12-01T00:00:00.000Z"));
const AT = Date.parse("2026-05-02T00:00:00.000Z");
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

const stage = (eventId: number, value: string): MarketingEvent => ({
  eventId,
  portalId: 62515,
  appId: Number(APP_ID),
  occurredAt: AT,
  subscriptionType: "deal.propertyChange",
  objectId: 801,
  propertyName: "dealstage",
  propertyValue: value,
  properties: { dealname: "Deal 801" },
});

async function deliver(tenantId: string, event: MarketingEvent): Promise<string> {
  const res = await postMarketing(h, SECRET, tenantId, [event], clock.now());
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: string[] }).entries[0]!;
}

/** The deal's stage decisions after delivering `events` in order, by stage: [valid_from, valid_to]. */
async function played(events: MarketingEvent[]) {
  const t = await tenantWithSecrets(h, { MARKETING_CRM_CLIENT_SECRET: SECRET, MARKETING_CRM_APP_ID: APP_ID });
  const ids: string[] = [];
  for (const event of events) ids.push(await deliver(t.tenant_id, event));
  const history: Record<string, [string, string | null]> = {};
  for (const id of ids) {
    const e = await readEntry(h, t.token, "decision", id);
    history[e.stage as string] = [e.valid_from as string, e.valid_to as string | null];
  }
  const now = await h.json("GET", "/memory/decisions?tag=deal", { token: t.token });
  return { history, now: (now.body.items as EntryView[]).map((e) => e.stage) };
}

test("two stages at the same instant: the same one is valid now in either arrival order", async () => {
  const first = stage(41, "qualifiedtobuy");
  const second = stage(42, "presentationscheduled");
  const inOrder = await played([first, second]);
  const reversed = await played([second, first]);
  expect(reversed).toEqual(inOrder);
  expect(inOrder.now).toEqual(["presentationscheduled"]);
  const at = new Date(AT).toISOString();
  expect(inOrder.history).toEqual({ qualifiedtobuy: [at, at], presentationscheduled: [at, null] });
});
