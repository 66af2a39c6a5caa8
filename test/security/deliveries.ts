/**
 * Signed deliveries of the 22 webhook sources for a leak run: good ones (signed with the tenant's
 * secret), ones that end as dead letters (their payload and headers are kept), and forged ones.
 */
import { randomUUID } from "node:crypto";
import type { FakeMailProvider } from "../fakes/mail-provider.ts";
import { officeGraphSender } from "../fakes/senders/office-graph.ts";
import type { PlatformSender, Signed } from "../fakes/senders/sender.ts";
import { CRM_ORG, crmSignature, marketingV1, soapMessage } from "../helpers/webhooks.ts";

export { CRM_ORG };

export interface Delivery {
  source: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
}

const enc = (text: string) => new TextEncoder().encode(text);

/**
 * One body every kit source accepts as its platform's (an event of a type it ignores, or a row
 * or form it maps): the sources read the fields they know and skip the rest.
 */
function kitBody(source: string, now: number): string {
  if (source === "telephony")
    return "MessageSid=SMleak1&MessageStatus=received&Body=hello&From=%2B1555&To=%2B1666&AccountSid=AC1";
  return JSON.stringify({
    id: `evt_leak_${randomUUID()}`,
    type: "leak.unknown",
    event: { id: `ev_${randomUUID()}`, event_type: "leak.unknown" },
    event_type: "leak.unknown",
    webhookTimestamp: now,
    action: "leak",
    value: [{ subscriptionId: "s1", changeType: "updated", resource: "r/1", resourceData: { id: "x" } }],
    rows: [{ event_id: `row_${randomUUID()}`, kind: "fact", content: "a warehouse row" }],
    messageId: `m_${randomUUID()}`,
    event_id: `f_${randomUUID()}`,
  });
}

/** A kit source's delivery signed as its platform signs (office_graph puts its clientState in the body). */
export async function kitDelivery(sender: PlatformSender, base: string, tenantId: string, now: number) {
  const path = `/webhooks/${sender.source}/${tenantId}`;
  const body = kitBody(sender.source, now);
  const opts = { now, url: `${base}${path}` };
  const signed: Signed =
    sender === officeGraphSender || !sender.signRaw
      ? await sender.sign(body, opts)
      : sender.signRaw(enc(body), opts);
  return {
    source: sender.source,
    path: path + (signed.query ?? ""),
    headers: signed.headers,
    body: signed.body,
  };
}

/** The same delivery with its body changed after signing: a forgery for every scheme that signs the body. */
export function tampered(delivery: Delivery): Delivery {
  const text = typeof delivery.body === "string" ? delivery.body : new TextDecoder().decode(delivery.body);
  return { ...delivery, body: `${text} ` };
}

/**
 * A Graph message notification that names no item: it carries the tenant's clientState (Graph's
 * only credential) and cannot be mapped, so it is kept as a dead letter.
 */
export function graphDeadLetter(tenantId: string, clientState: string): Delivery {
  const notification = {
    subscriptionId: randomUUID(),
    clientState,
    changeType: "created",
    resourceData: { "@odata.type": "#Microsoft.Graph.Message" },
  };
  return {
    source: "office_graph",
    path: `/webhooks/office_graph/${tenantId}`,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ value: [notification] }),
  };
}

let marketingSeq = 0;

/** A marketing CRM delivery (v1 signature); `contact.deletion` is mapped but ends as a dead letter. */
export function marketingDelivery(tenantId: string, secret: string, appId: string, type: string): Delivery {
  marketingSeq++;
  const body = JSON.stringify([
    {
      eventId: marketingSeq,
      portalId: 1,
      appId: Number(appId),
      occurredAt: Date.now() - 60_000 + marketingSeq,
      subscriptionType: type,
      objectId: 900 + marketingSeq,
    },
  ]);
  return {
    source: "marketing_crm",
    path: `/webhooks/marketing_crm/${tenantId}`,
    headers: { "content-type": "application/json", "x-marketingcrm-signature": marketingV1(secret, body) },
    body,
  };
}

/** A data platform delivery: `Authorization: Bearer <token>`. */
export function dataDelivery(tenantId: string, token: string, event: Record<string, unknown>): Delivery {
  return {
    source: "data",
    path: `/webhooks/data/${tenantId}`,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(event),
  };
}

export const dataJobSucceeded = (runId: number) => ({
  event_type: "jobs.on_success",
  workspace_id: "ws-leak",
  run: { run_id: runId, start_time: 1763719000000, end_time: 1763719090000 },
  job: { job_id: 7, name: "nightly" },
});

/** Mapped, but lacking what its mapping needs: a dead letter. */
export const dataModelDeleted = (ts: number) => ({
  event: "MODEL_VERSION_DELETED",
  webhook_id: "wh",
  event_timestamp: ts,
  model_name: "churn",
  version: "1",
});

/** A CRM outbound message (SOAP); an object type without a mapping is a dead letter. */
export function crmDelivery(tenantId: string, secret: string, type: string): Delivery {
  const xml = soapMessage([
    { id: `04l5e00000${Math.floor(Math.random() * 1e6)}`, type, fields: { Id: "a1", Name: "INV-1" } },
  ]);
  return {
    source: "crm",
    path: `/webhooks/crm/${tenantId}`,
    headers: { "content-type": "text/xml", "x-crm-signature": crmSignature(secret, xml) },
    body: xml,
  };
}

/** A mail push notification with the push service's OIDC token for `email`. */
export async function mailPush(
  mail: FakeMailProvider,
  tenantId: string,
  email: string,
  historyId: number,
): Promise<Delivery> {
  return {
    source: "mail",
    path: `/webhooks/mail/${tenantId}`,
    headers: { "content-type": "application/json", authorization: `Bearer ${await mail.signPushToken()}` },
    body: mail.pushBody({ emailAddress: email, historyId }, `${Date.now()}${historyId}`),
  };
}
