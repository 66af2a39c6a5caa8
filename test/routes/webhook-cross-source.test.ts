/**
 * Entries linked across sources by a shared object close with it (docs/source-mappings.md,
 * "Lifecycles"), through the webhook routes with real signatures: a `standard` escalation naming a
 * helpdesk ticket (`data.links: ["helpdesk:ticket:…"]`) is resolved when the ticket is solved, in
 * either arrival order; one after the ticket was solved (in event time) stays open. A dunning
 * failure naming a payments invoice is resolved when the invoice is paid.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { helpdeskSender, ticketDetail, zendeskEvent } from "../fakes/senders/helpdesk.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import type { PlatformSender } from "../fakes/senders/sender.ts";
import { standardSender } from "../fakes/senders/standard.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { postSigned, readEntry, tenantWithSecrets } from "../helpers/webhooks.ts";

const clock = new ManualClock(Date.parse("2026-12-01T00:00:00.000Z"));
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

const tenant = () =>
  tenantWithSecrets(h, helpdeskSender.secrets, standardSender.secrets, paymentsSender.secrets);

const DAY = 86_400_000;
const T0 = Date.parse("2026-06-01T00:00:00.000Z");
const iso = (day: number) => new Date(T0 + day * DAY).toISOString();

/** Posts one signed body; answers the entry it wrote. */
async function deliver(sender: PlatformSender, tenantId: string, body: string): Promise<string> {
  const res = await postSigned(h, sender, tenantId, body, clock.now());
  const summary = (await res.json()) as { entries: string[]; dead_lettered: string[] };
  expect({ status: res.status, dead: summary.dead_lettered }).toEqual({ status: 200, dead: [] });
  expect(summary.entries).toHaveLength(1);
  return summary.entries[0]!;
}

/** A helpdesk ticket event on `day` (the ticket created that day too, for its created event). */
function ticketEvent(type: string, event: Record<string, unknown>, id: string, status: string, day: number) {
  const detail = ticketDetail({ id, status, created_at: iso(day) });
  return JSON.stringify({ ...JSON.parse(zendeskEvent(type, event, detail)), time: iso(day) });
}
const opened = (id: string, day: number) => ticketEvent("ticket.created", {}, id, "NEW", day);
const solved = (id: string, day: number) =>
  ticketEvent("ticket.status_changed", { current: "SOLVED", previous: "OPEN" }, id, "SOLVED", day);

let escalations = 0;
/** A Standard Webhooks escalation (an SLA failed, an exception) naming the helpdesk ticket. */
function escalation(ticket: string, day: number): string {
  return JSON.stringify({
    type: "sla.failed",
    timestamp: iso(day),
    data: {
      id: `esc_${++escalations}`,
      message: `First response SLA missed on ticket ${ticket}`,
      links: [`helpdesk:ticket:${ticket}`],
    },
  });
}

describe("a standard escalation naming a helpdesk ticket closes with the ticket", () => {
  test("solving the ticket resolves the escalation", async () => {
    const t = await tenant();
    await deliver(helpdeskSender, t.tenant_id, opened("7101", 1));
    const esc = await deliver(standardSender, t.tenant_id, escalation("7101", 2));
    expect(await readEntry(h, t.token, "exception", esc)).toMatchObject({ status: "open" });
    await deliver(helpdeskSender, t.tenant_id, solved("7101", 4));
    expect(await readEntry(h, t.token, "exception", esc)).toMatchObject({ status: "resolved" });
    const open = await h.json("GET", "/memory/exceptions?status=open", { token: t.token });
    expect(open.body.items).toEqual([]);
  });

  test("an escalation delivered after its ticket was solved is written resolved, never reopens it", async () => {
    const t = await tenant();
    await deliver(helpdeskSender, t.tenant_id, opened("7102", 1));
    await deliver(helpdeskSender, t.tenant_id, solved("7102", 4));
    const esc = await deliver(standardSender, t.tenant_id, escalation("7102", 2));
    expect(await readEntry(h, t.token, "exception", esc)).toMatchObject({
      valid_from: iso(2),
      status: "resolved",
    });
    const open = await h.json("GET", "/memory/exceptions?status=open", { token: t.token });
    expect(open.body.items).toEqual([]);
  });

  test("an escalation after the ticket's solve (in event time) stays open; another ticket's solve closes nothing of it", async () => {
    const t = await tenant();
    await deliver(helpdeskSender, t.tenant_id, solved("7103", 4));
    const later = await deliver(standardSender, t.tenant_id, escalation("7103", 6));
    const other = await deliver(standardSender, t.tenant_id, escalation("7104", 2));
    await deliver(helpdeskSender, t.tenant_id, solved("7105", 5));
    expect(await readEntry(h, t.token, "exception", later)).toMatchObject({ status: "open" });
    expect(await readEntry(h, t.token, "exception", other)).toMatchObject({ status: "open" });
  });

  test("a link that is not a fully qualified object key is left out: the escalation is its own", async () => {
    const t = await tenant();
    const body = JSON.stringify({
      type: "sla.failed",
      timestamp: iso(2),
      data: { id: "esc_plain", message: "SLA missed", links: ["7106", ":x", 42, null] },
    });
    const esc = await deliver(standardSender, t.tenant_id, body);
    await deliver(helpdeskSender, t.tenant_id, solved("7106", 4));
    expect(await readEntry(h, t.token, "exception", esc)).toMatchObject({ status: "open" });
  });
});

test("a standard dunning failure naming a payments invoice is resolved when the invoice is paid", async () => {
  const t = await tenant();
  const dunning = JSON.stringify({
    type: "dunning.failed",
    timestamp: iso(2),
    data: { id: "dun_1", message: "Reminder bounced", links: ["payments:invoice:in_7201"] },
  });
  const failed = await deliver(standardSender, t.tenant_id, dunning);
  const paid = stripeEvent(
    "invoice.paid",
    { id: "in_7201", object: "invoice", customer: "cus_7201", amount_paid: 4900, currency: "eur" },
    Math.floor((T0 + 3 * DAY) / 1000),
  );
  await deliver(paymentsSender, t.tenant_id, paid);
  expect(await readEntry(h, t.token, "exception", failed)).toMatchObject({ status: "resolved" });
});
