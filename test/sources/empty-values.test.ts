/**
 * No entry from empty values (CONTRACT §7): for each of the 22 webhook sources, one real-shaped
 * event lacking what its mapping needs (absent, blank, or a placeholder such as "?"), posted with a
 * real signature to POST /webhooks/{source}/{tenant}: the delivery is a 200, the event is listed
 * under `dead_lettered`, nothing is written, and the dead letter's `last_error` names the field.
 * The same for a streamed CRM change event, a mail message found by a notification's expansion,
 * and a messaging bridge event. Black-box through the harness (app.handle, the runtime's bridge).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  startFakeCrmPlatform,
} from "../fakes/crm-platform.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { SENDERS } from "../fakes/senders/all.ts";
import { segmentMessage } from "../fakes/senders/analytics.ts";
import { CHANNEL_ID, googleNotification } from "../fakes/senders/calendar.ts";
import { deliveryIdOf, githubDelivery, pullRequestClosed } from "../fakes/senders/code-host.ts";
import { connectEvent } from "../fakes/senders/esign.ts";
import { typeformEvent } from "../fakes/senders/forms.ts";
import { zendeskEvent } from "../fakes/senders/helpdesk.ts";
import { incident, pagerdutyEvent } from "../fakes/senders/incidents.ts";
import { identifierOf, issueLinkCreated } from "../fakes/senders/issue-tracker.ts";
import { meetingEnded } from "../fakes/senders/meetings.ts";
import { graphDelivery, lifecycleNotification } from "../fakes/senders/office-graph.ts";
import { stripeEvent } from "../fakes/senders/payments.ts";
import { commentCreated, deliveryOf as linearDeliveryOf } from "../fakes/senders/project-tracker.ts";
import { calendlyEvent, invitee, scheduledEvent } from "../fakes/senders/scheduling.ts";
import type { PlatformSender } from "../fakes/senders/sender.ts";
import {
  newCustomer,
  shopifyDelivery,
  deliveryOf as shopifyDeliveryOf,
} from "../fakes/senders/storefront.ts";
import { contact, notification } from "../fakes/senders/support-chat.ts";
import { inboundSms } from "../fakes/senders/telephony.ts";
import { rows, warehouseRow } from "../fakes/senders/warehouse.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import {
  crmSignature,
  type DeadLetterView,
  deadLetters,
  marketingEventId,
  marketingV1,
  setSecrets,
  soapMessage,
} from "../helpers/webhooks.ts";

interface Summary {
  accepted: number;
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
  ignored: number;
}

const clock = new ManualClock();
const crmKeys = crmKeyPair();
const EMAIL = "ops@example.com";
let h: Harness;
let mail: FakeMailProvider;
let crm: FakeCrmPlatform;

beforeAll(async () => {
  mail = await startFakeMailProvider({ now: () => clock.now() });
  crm = await startFakeCrmPlatform({
    publicKeyPem: crmKeys.publicKeyPem,
    now: () => clock.now(),
    pollMs: 300,
  });
  h = await startHarness({
    clock,
    env: {
      MAIL_OAUTH_TOKEN_URL: mail.tokenUrl,
      MAIL_API_BASE_URL: mail.apiBaseUrl,
      MAIL_PUBSUB_JWKS_URL: mail.jwksUrl,
    },
  });
});
afterAll(async () => {
  await h.close();
  mail.stop();
  crm.stop();
});

async function tenant(secrets: Record<string, string>): Promise<string> {
  const { tenant_id } = await h.createTenant();
  setSecrets(h, tenant_id, secrets);
  return tenant_id;
}

async function summaryOf(res: Response): Promise<Summary> {
  const text = await res.text();
  expect({ status: res.status, body: text.slice(0, 300) }).toMatchObject({ status: 200 });
  return JSON.parse(text);
}

const entryCount = async (t: string): Promise<number> =>
  (await h.json("GET", `/tenants/${t}/healthz`, { token: h.adminToken })).body.vault.entries;

/**
 * What every case asserts once its delivery is answered: the event (and nothing else) was
 * dead-lettered under `eventId` (when the test knows it beforehand), nothing was written, and the
 * dead letter names the missing field.
 */
async function expectDeadLettered(
  t: string,
  summary: Pick<Summary, "entries" | "dead_lettered">,
  lastError: string,
  eventId?: string,
): Promise<DeadLetterView> {
  expect(summary.entries).toEqual([]);
  expect(summary.dead_lettered).toHaveLength(1);
  const id = summary.dead_lettered[0]!;
  if (eventId !== undefined) expect(id).toBe(eventId);
  const [letter, ...others] = await deadLetters(h, t);
  expect(others).toEqual([]);
  expect(letter).toMatchObject({ event_id: id, status: "dead", attempts: 1, last_error: lastError });
  expect(await entryCount(t)).toBe(0);
  return letter!;
}

// ── the eighteen sources with a platform sender ─────────────────────────────────────────────

interface Malformed {
  /** What is wrong with it, as the test names it. */
  name: string;
  body(): string;
  /** The dead letter's last_error. */
  lastError: string;
  /** The event id, where the body (or the fake that built it) says it. */
  eventId?(body: string): string;
}

const MALFORMED: Record<string, Malformed> = {
  payments: {
    name: "payment succeeded with an empty data object",
    body: () => stripeEvent("payment_intent.succeeded", {}),
    lastError: "missing_field: data.object.id",
    eventId: (body) => JSON.parse(body).id,
  },
  code_host: {
    name: "pull request merged without base.ref",
    body: () => {
      const payload = JSON.parse(pullRequestClosed({ repo: "acme/billing", number: 12 }));
      delete payload.pull_request.base.ref;
      return githubDelivery("pull_request", payload);
    },
    lastError: "missing_field: pull_request.base.ref",
    eventId: deliveryIdOf,
  },
  storefront: {
    name: "customer created without the shop's domain (its relationship's object)",
    body: () => shopifyDelivery("customers/create", newCustomer(), ""),
    lastError: "missing_field: shop_domain",
    eventId: (body) => `customers/create:${shopifyDeliveryOf(body).eventId}`,
  },
  helpdesk: {
    name: "comment added with a blank body",
    body: () =>
      zendeskEvent("ticket.comment_added", {
        comment: { id: 9876543210, body: "   ", author: { id: 5, name: "Grace Hopper" }, is_public: true },
      }),
    lastError: "missing_field: event.comment.body",
    eventId: (body) => JSON.parse(body).id,
  },
  issue_tracker: {
    name: 'issue link created to issue "unknown"',
    body: () => issueLinkCreated("10231", "unknown"),
    lastError: "missing_field: issueLink.destinationIssueId",
    eventId: identifierOf,
  },
  project_tracker: {
    name: "comment created with a blank body",
    body: () => commentCreated("  "),
    lastError: "missing_field: data.body",
    eventId: linearDeliveryOf,
  },
  support_chat: {
    name: "contact created with a blank id",
    body: () => notification("contact.user.created", contact("user", { id: " " })),
    lastError: "missing_field: data.item.id",
    eventId: (body) => JSON.parse(body).id,
  },
  telephony: {
    name: "inbound SMS with an empty body and no media",
    body: () => inboundSms(""),
    lastError: "missing_field: Body or MediaUrl0",
    eventId: (body) => `${new URLSearchParams(body).get("MessageSid")}:received`,
  },
  meetings: {
    name: 'meeting ended with the meeting id "?"',
    body: () => meetingEnded({ id: "?" }),
    lastError: "missing_field: payload.object.id",
  },
  incidents: {
    name: "incident triggered with a blank incident id",
    body: () => pagerdutyEvent("incident.triggered", incident({ id: " " })),
    lastError: "missing_field: data.id",
    eventId: (body) => JSON.parse(body).event.id,
  },
  scheduling: {
    name: 'invitee created for a meeting whose start time is "n/a"',
    body: () =>
      calendlyEvent("invitee.created", invitee({ scheduled_event: scheduledEvent({ start_time: "n/a" }) })),
    lastError: "missing_field: payload.scheduled_event.start_time",
    eventId: (body) => `invitee.created:${JSON.parse(body).payload.uri}`,
  },
  forms: {
    name: "form response with a blank token",
    body: () => typeformEvent(undefined, { token: "  " }),
    lastError: "missing_field: form_response.token",
    eventId: (body) => JSON.parse(body).event_id,
  },
  esign: {
    name: "envelope sent without its envelope id",
    body: () => connectEvent("envelope-sent", { envelopeId: null }),
    lastError: "missing_field: data.envelopeId or data.envelopeSummary.envelopeId",
  },
  office_graph: {
    name: 'subscription removed, naming subscription "unknown"',
    body: () => graphDelivery(lifecycleNotification("subscriptionRemoved", "unknown")),
    lastError: "missing_field: subscriptionId",
  },
  analytics: {
    name: "track call with a blank event name",
    body: () => segmentMessage("track", { userId: "97980cfea0067", event: "   " }),
    lastError: "missing_field: event",
    eventId: (body) => JSON.parse(body).messageId,
  },
  warehouse: {
    name: 'relationship row whose object is "-"',
    body: () =>
      rows(
        warehouseRow("relationship", {
          content: "Ada works at",
          subject: "Ada",
          predicate: "works at",
          object: "-",
        }),
      ),
    lastError: "missing_field: object",
    eventId: (body) => JSON.parse(body)[0].event_id,
  },
  standard: {
    name: "event with an empty data object",
    body: () => JSON.stringify({ type: "user.created", timestamp: "2026-11-21T09:59:00.000Z", data: {} }),
    lastError: "missing_field: data",
  },
  calendar: {
    name: "change notification naming no resource",
    body: () => googleNotification({ state: "exists", messageNumber: 9001, noResource: true }),
    lastError: "missing_field: resource_uri or resource_id",
    eventId: () => `${CHANNEL_ID}:9001`,
  },
};

describe.each(SENDERS.map((sender) => [sender.source, sender] as const))(
  "%s",
  (id, sender: PlatformSender) => {
    const sample = MALFORMED[id]!;

    test(`${sample.name}: 200, dead-lettered naming the field, nothing written`, async () => {
      const t = await tenant(sender.secrets);
      const body = sample.body();
      const url = `${BASE}/webhooks/${id}/${t}`;
      const signed = await sender.sign(body, { now: clock.now(), url });
      const res = await h.call("POST", `/webhooks/${id}/${t}${signed.query ?? ""}`, {
        raw: signed.body,
        headers: signed.headers,
      });
      const summary = await summaryOf(res);
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      const letter = await expectDeadLettered(t, summary, sample.lastError, sample.eventId?.(body));
      expect(letter.source).toBe(id);
    });
  },
);

test("every sender source has a malformed sample", () => {
  expect(Object.keys(MALFORMED).sort()).toEqual(SENDERS.map((s) => s.source).sort());
});

// ── the four sources of CONTRACT §7 ─────────────────────────────────────────────────────────

describe("marketing_crm, data, crm", () => {
  test("marketing_crm: a contact created without its portal (the relationship's object) is dead-lettered", async () => {
    const secret = "mkt-secret-empty-values";
    const t = await tenant({ MARKETING_CRM_CLIENT_SECRET: secret, MARKETING_CRM_APP_ID: "54321" });
    const event = {
      eventId: 7,
      subscriptionId: 12345,
      appId: 54321,
      occurredAt: clock.now() - 1000,
      subscriptionType: "contact.creation",
      attemptNumber: 0,
      objectId: 901,
      changeSource: "CRM",
    };
    const body = JSON.stringify([event]);
    const res = await h.call("POST", `/webhooks/marketing_crm/${t}`, {
      raw: body,
      headers: { "content-type": "application/json", "x-marketingcrm-signature": marketingV1(secret, body) },
    });
    const summary = await summaryOf(res);
    expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
    await expectDeadLettered(t, summary, "missing_field: portalId", marketingEventId(event));
  });

  test("data: a job run whose job has neither name nor id is dead-lettered", async () => {
    const t = await tenant({ DATA_WEBHOOK_TOKEN: "data-token-empty-values" });
    const body = JSON.stringify({
      event_type: "jobs.on_success",
      workspace_id: "ws-1",
      run: { run_id: 4711, run_duration: 1200 },
      job: { name: " ", job_id: null },
    });
    const res = await h.call("POST", `/webhooks/data/${t}`, {
      raw: body,
      headers: { "content-type": "application/json", authorization: "Bearer data-token-empty-values" },
    });
    const summary = await summaryOf(res);
    expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
    await expectDeadLettered(t, summary, "missing_field: job.name or job.job_id", "jobs.on_success:4711");
  });

  test('crm: an Account named "?" with no record id is dead-lettered; the SOAP ack still answers', async () => {
    const secret = "crm-secret-empty-values";
    const t = await tenant({ CRM_WEBHOOK_SECRET: secret });
    const body = soapMessage([
      { id: "04l5e00000EmptyAAA", type: "Account", fields: { Name: "?", Industry: "Retail" } },
    ]);
    const res = await h.call("POST", `/webhooks/crm/${t}`, {
      raw: body,
      headers: { "content-type": "text/xml; charset=utf-8", "x-crm-signature": crmSignature(secret, body) },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<Ack>true</Ack>");
    const summary = JSON.parse(res.headers.get("x-memory-summary") ?? "{}") as Summary;
    expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
    await expectDeadLettered(t, summary, "missing_field: Name or Id", "04l5e00000EmptyAAA");
  });
});

// ── mail: a message found by a notification's expansion ─────────────────────────────────────

describe("mail", () => {
  test("a new message without a sender is dead-lettered on its own; the notification still moves the mark", async () => {
    const t = await tenant({ MAIL_PUBSUB_AUDIENCE: mail.audience, MAIL_WATCH_EMAIL: EMAIL });
    setSecrets(h, t, {
      MAIL_CLIENT_ID: mail.clientId,
      MAIL_CLIENT_SECRET: mail.clientSecret,
      MAIL_REFRESH_TOKEN: mail.refreshToken,
      MAIL_PUBSUB_TOPIC: "projects/acme/topics/mail",
    });
    // The watch records the mailbox's history id: the expansion starts there.
    await h.runtime.startConnectorsFor(t);
    const historyId = String(Number(mail.historyId) + 1);
    mail.messages.set("m-nofrom", {
      id: "m-nofrom",
      threadId: "t-nofrom",
      labelIds: ["INBOX"],
      snippet: "No sender on this one",
      internalDate: String(clock.now() - 60_000),
      payload: {
        headers: [
          { name: "Subject", value: "Who sent this?" },
          { name: "From", value: "  " },
        ],
      },
    });
    mail.history.push({
      id: historyId,
      messagesAdded: [{ message: { id: "m-nofrom", threadId: "t-nofrom", labelIds: ["INBOX"] } }],
    });
    mail.historyId = historyId;
    const res = await h.call("POST", `/webhooks/mail/${t}`, {
      raw: mail.pushBody({ emailAddress: EMAIL, historyId }, "push-empty-values"),
      headers: {
        authorization: `Bearer ${await mail.signPushToken()}`,
        "content-type": "application/json",
      },
    });
    const summary = await summaryOf(res);
    // The notification itself was handled (accepted, its mark committed); only the message failed.
    expect(summary).toMatchObject({ accepted: 1, entries: [], duplicates: 0, ignored: 0 });
    const letter = await expectDeadLettered(
      t,
      summary,
      "missing_field: message.headers.From",
      "push-empty-values:m-nofrom:message_added",
    );
    expect(letter).toMatchObject({ source: "mail", event_type: "mail.message_added" });
    const mark = await h.runtime.services.tenant(t).ask({ type: "connector.state.get", key: "mail:history" });
    expect(mark).toBe(historyId);
    // A replay maps the kept message again: still no sender, still dead.
    const replayed = await h.json(
      "POST",
      `/admin/webhooks/replay/${t}/${encodeURIComponent(letter.event_id)}`,
      { token: h.adminToken },
    );
    expect(replayed.body).toEqual({
      event_id: letter.event_id,
      status: "dead",
      last_error: "missing_field: message.headers.From",
    });
  });
});

// ── the CRM stream and the messaging bridge ─────────────────────────────────────────────────

describe("CRM stream and messaging bridge", () => {
  test("a streamed Opportunity change whose stage is blank is dead-lettered, and the stream moves past it", async () => {
    const t = await tenant(crmConnectorSecrets(crm, crmKeys, "sse"));
    await h.runtime.startConnectorsFor(t);
    const status = async () =>
      (await h.json("GET", `/tenants/${t}/healthz`, { token: h.adminToken })).body.connectors.crm;
    await pollUntil(status, (s) => s?.state === "connected", { timeoutMs: 4000 });
    const published = crm.publish("Opportunity", "CREATE", ["006xx0000EMPTY"], {
      Name: "Deal",
      StageName: "  ",
    });
    await pollUntil(status, (s) => s?.replay?.["/data/ChangeEvents"] === published.replayId, {
      timeoutMs: 4000,
    });
    const letter = await expectDeadLettered(
      t,
      { entries: [], dead_lettered: [published.uuid] },
      "missing_field: StageName",
      published.uuid,
    );
    expect(letter).toMatchObject({ source: "crm", event_type: "Opportunity.CREATE" });
  });

  test("a chat message with a blank text is dead-lettered by the bridge, naming the text", async () => {
    const { tenant_id: t } = await h.createTenant();
    const result = await h.runtime.bridge.deliver(t, {
      type: "message",
      channel: "C024BE91L",
      user: "U2147483697",
      text: "  \n ",
      ts: "1763720000.000100",
    });
    expect(result).toEqual({
      entries: [],
      duplicates: 0,
      dead_lettered: ["C024BE91L:1763720000.000100:message"],
      ignored: 0,
      held: 0,
    });
    const letter = await expectDeadLettered(
      t,
      result,
      "missing_field: text",
      "C024BE91L:1763720000.000100:message",
    );
    expect(letter).toMatchObject({ source: "messaging", event_type: "message" });
  });
});
