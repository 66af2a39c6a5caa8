/**
 * Entries carry the names people use (issue 29, item 4), black-box through the webhook routes with
 * real signatures and `POST /memory/search`: a payment is found under its customer's name, e-mail
 * and description while its customer id stays in `data`; `data`'s words are found at low weight,
 * below an entry that says them in its content; a template does not double a full stop.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { analyticsSender, segmentMessage } from "../fakes/senders/analytics.ts";
import { helpdeskSender, ticketDetail, zendeskEvent } from "../fakes/senders/helpdesk.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import type { PlatformSender } from "../fakes/senders/sender.ts";
import { standardEvent, standardSender } from "../fakes/senders/standard.ts";
import { callStatus, telephonySender } from "../fakes/senders/telephony.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { marketingV1, readEntry, setSecrets } from "../helpers/webhooks.ts";

const clock = new ManualClock();
let h: Harness;
let tenant: { tenant_id: string; token: string };

beforeAll(async () => {
  h = await startHarness({ clock });
  tenant = await h.createTenant();
  for (const sender of [paymentsSender, helpdeskSender, standardSender, analyticsSender, telephonySender])
    setSecrets(h, tenant.tenant_id, sender.secrets);
});
afterAll(() => h.close());

/** Posts one signed delivery; the id of the entry it wrote. */
async function deliver(sender: PlatformSender, body: string): Promise<string> {
  const url = `${BASE}/webhooks/${sender.source}/${tenant.tenant_id}`;
  const signed = await sender.sign(body, { now: clock.now(), url });
  const res = await h.call("POST", `/webhooks/${sender.source}/${tenant.tenant_id}`, {
    raw: signed.body,
    headers: signed.headers,
  });
  const summary = (await res.json()) as { dead_lettered: unknown[]; entries: string[] };
  expect({ status: res.status, dead: summary.dead_lettered }).toEqual({ status: 200, dead: [] });
  expect(summary.entries).toHaveLength(1);
  return summary.entries[0]!;
}

async function search(query: string): Promise<string[]> {
  const { status, body } = await h.json("POST", "/memory/search", { token: tenant.token, body: { query } });
  expect(status).toBe(200);
  return body.results.map((r: { entry: { id: string } }) => r.entry.id);
}

describe("payments entries name the customer", () => {
  test("a failed invoice is found by the customer's name; the customer id stays in data", async () => {
    const id = await deliver(
      paymentsSender,
      stripeEvent("invoice.payment_failed", {
        id: "in_names",
        object: "invoice",
        number: "INV-7001",
        amount_due: 12000,
        currency: "eur",
        customer: "cus_NAMES01",
        customer_name: "Wrenfield Logistics",
        customer_email: "ap@wrenfield.example",
      }),
    );
    const entry = await readEntry(h, tenant.token, "exception", id);
    expect(entry.content).toBe(
      "Invoice INV-7001 payment failed of 120 EUR for Wrenfield Logistics <ap@wrenfield.example> (customer cus_NAMES01).",
    );
    expect(entry.data).toMatchObject({ customer: "cus_NAMES01", customer_name: "Wrenfield Logistics" });
    expect((await search("Wrenfield Logistics"))[0]).toBe(id);
  });

  test("a payment is found by its receipt e-mail and its description", async () => {
    const id = await deliver(
      paymentsSender,
      stripeEvent("payment_intent.succeeded", {
        id: "pi_names",
        amount: 4999,
        amount_received: 4999,
        currency: "eur",
        customer: "cus_NAMES02",
        receipt_email: "billing@tamberlow.example",
        description: "Tamberlow Studios, Team annual",
      }),
    );
    const entry = await readEntry(h, tenant.token, "fact", id);
    expect(entry.content).toContain(
      "for billing@tamberlow.example (customer cus_NAMES02): Tamberlow Studios, Team annual.",
    );
    expect((await search("Tamberlow Studios"))[0]).toBe(id);
    expect((await search("billing@tamberlow.example"))[0]).toBe(id);
  });
});

describe("deals name their company", () => {
  test("a stage change carrying the company is found under the company's name", async () => {
    const secret = "marketing-secret-names";
    setSecrets(h, tenant.tenant_id, { MARKETING_CRM_CLIENT_SECRET: secret, MARKETING_CRM_APP_ID: "77" });
    const event = {
      eventId: 1,
      appId: 77,
      portalId: 5,
      occurredAt: clock.now(),
      subscriptionType: "deal.propertyChange",
      objectId: 4242,
      propertyName: "dealstage",
      propertyValue: "contractsent",
      properties: { dealname: "Platform renewal", company: "Oakhaven Textiles" },
    };
    const body = JSON.stringify([event]);
    const res = await h.call("POST", `/webhooks/marketing_crm/${tenant.tenant_id}`, {
      raw: body,
      headers: { "content-type": "application/json", "x-hubspot-signature": marketingV1(secret, body) },
    });
    const summary = (await res.json()) as { entries: string[] };
    expect(res.status).toBe(200);
    const entry = await readEntry(h, tenant.token, "decision", summary.entries[0]!);
    expect(entry.content).toBe("Deal Platform renewal (Oakhaven Textiles) moved to stage contractsent.");
    expect((await search("Oakhaven Textiles"))[0]).toBe(entry.id);
  });
});

describe("analytics names the user its context carries", () => {
  test("a tracked event is found by the user's name", async () => {
    const body = JSON.parse(
      segmentMessage("track", { userId: "u_991", event: "Report Exported", properties: {} }),
    );
    body.context.traits = { name: "Ingrid Castillo", email: "ingrid@juniper.example" };
    const id = await deliver(analyticsSender, JSON.stringify(body));
    const entry = await readEntry(h, tenant.token, "fact", id);
    expect(entry.content).toStartWith("User u_991 (Ingrid Castillo <ingrid@juniper.example>) did");
    expect((await search("Ingrid Castillo"))[0]).toBe(id);
  });
});

describe("telephony names the caller Twilio looked up", () => {
  test("a completed call is found by the caller's name", async () => {
    const id = await deliver(telephonySender, callStatus("completed", { CallerName: "Halden Foods" }));
    const entry = await readEntry(h, tenant.token, "fact", id);
    expect(entry.content).toMatch(/ from \S+ \(Halden Foods\) to /);
    expect((await search("Halden Foods"))[0]).toBe(id);
  });
});

describe("data is searchable at low weight", () => {
  test("a word only data holds finds the entry, below an entry whose content says it", async () => {
    const inData = await h.json("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "Quarterly account review held", data: { account_manager: "Zoltan Brightwater" } },
    });
    const inContent = await h.json("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "Zoltan Brightwater joined the account team" },
    });
    expect([inData.status, inContent.status]).toEqual([201, 201]);
    const found = await search("Zoltan Brightwater");
    expect(found.slice(0, 2)).toEqual([inContent.body.id, inData.body.id]);
  });

  test("an escalated ticket is found by words of its description", async () => {
    const detail = ticketDetail({
      id: "7101",
      description: "Ingrid from Kestrelby Media cannot export reports",
    });
    const id = await deliver(
      helpdeskSender,
      zendeskEvent("ticket.priority_changed", { previous: "normal", current: "urgent" }, detail),
    );
    const entry = await readEntry(h, tenant.token, "exception", id);
    expect(entry.content).toContain("Kestrelby Media");
    expect((await search("Kestrelby Media"))[0]).toBe(id);
  });
});

describe("templates end with one full stop", () => {
  test("a description that ends its sentence does not get a second stop", async () => {
    const id = await deliver(
      standardSender,
      standardEvent("account.usage_reported", {
        id: "acct_51",
        description: "Halvard Energy has 51 active seats.",
      }),
    );
    const entry = await readEntry(h, tenant.token, "fact", id);
    expect(entry.content).toBe(
      "account.usage_reported happened (acct_51): Halvard Energy has 51 active seats.",
    );
  });
});
