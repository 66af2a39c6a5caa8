import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Zendesk's signing: `X-Zendesk-Webhook-Signature: <base64 HMAC-SHA256 of timestamp + body>` with
 * `X-Zendesk-Webhook-Signature-Timestamp` (RFC 3339, whole seconds), keyed with the webhook's
 * signing secret.
 */
export const HELPDESK_SECRET = "dGhpc19zZWNyZXRfaXNfZm9yX3Rlc3Rpbmdfb25seQ";
const OLD_SECRET = "the-signing-secret-before-it-was-reset";

/** Zendesk's timestamp: RFC 3339 in UTC, without fractional seconds. */
export const zendeskTimestamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

export function zendeskSignature(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret)
    .update(timestamp + body)
    .digest("base64");
}

function headers(timestamp: string, signature: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "Zendesk Webhook",
    "x-zendesk-account-id": "22129848",
    "x-zendesk-webhook-id": "01JDB3Y0X6H8K9M2N4P6Q8R0S2",
    "x-zendesk-webhook-invocation-id": String(randomInt(1e9, 9e9)),
    "x-zendesk-webhook-signature-timestamp": timestamp,
    "x-zendesk-webhook-signature": signature,
  };
}

export const helpdeskSender: PlatformSender = {
  source: "helpdesk",
  secrets: { HELPDESK_SIGNING_SECRET: HELPDESK_SECRET },
  signsBody: true,
  staleMs: 6 * 60_000,
  sign(body: string, { now }: SignOptions): Signed {
    const ts = zendeskTimestamp(now);
    return { headers: headers(ts, zendeskSignature(HELPDESK_SECRET, ts, body)), body };
  },
  // Zendesk sends one signature; the header sent twice arrives joined with ", ".
  signRotated(body: string, { now }: SignOptions): Signed {
    const ts = zendeskTimestamp(now);
    const both = `${zendeskSignature(OLD_SECRET, ts, body)}, ${zendeskSignature(HELPDESK_SECRET, ts, body)}`;
    return { headers: headers(ts, both), body };
  },
};

/** A ticket as the `detail` of ticket events carries it. */
export function ticketDetail(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    actor_id: "8447388090495",
    assignee_id: "8447388090495",
    brand_id: "8447346621310",
    created_at: "2026-11-21T09:12:07Z",
    custom_status: "8447320465790",
    description: "Customer is experiencing login issues with the mobile app",
    external_id: null,
    form_id: "8646151517822",
    group_id: "8447320466430",
    id: "5158",
    is_public: true,
    organization_id: "8447346622462",
    priority: "HIGH",
    requester_id: "8447388090494",
    status: "OPEN",
    subject: "Cannot login to mobile app",
    submitter_id: "8447388090494",
    tags: ["mobile", "login"],
    type: "PROBLEM",
    updated_at: "2026-11-21T09:58:30Z",
    via: { channel: "web_service" },
    ...overrides,
  };
}

/** An event-subscribed webhook body: `{type, account_id, id, time, zendesk_event_version, subject, detail, event}`. */
export function zendeskEvent(
  type: string,
  event: Record<string, unknown> = {},
  detail: Record<string, unknown> = ticketDetail(),
): string {
  return JSON.stringify({
    type: `zen:event-type:${type}`,
    account_id: 22129848,
    id: randomUUID(),
    time: "2026-11-21T09:58:30.672717030Z",
    zendesk_event_version: "2022-11-06",
    subject: `zen:ticket:${String(detail.id ?? "")}`,
    detail,
    event,
  });
}
