/**
 * The origin of an entry a platform event wrote: the source, how its delivery was verified
 * (SOURCES.md), the delivery and the event, and a digest of what was verified: the raw body of a
 * webhook delivery, or the event as the runtime keeps it where the bytes are gone (a connector's
 * stream, a replayed dead letter, a released held event).
 */
import { createHash } from "node:crypto";
import type { Provenance } from "../models/origin.ts";
import { BRIDGE_SOURCE } from "./trust.ts";

/** What a webhook delivery's verification establishes, for every event it carries. */
export interface DeliveryOrigin {
  scheme: string;
  delivery_id: string | null;
  payload_sha256: string;
}

/** Each webhook source's verification scheme (SOURCES.md), as the origin names it. */
const SCHEMES: Readonly<Record<string, string>> = {
  marketing_crm: "sha256(client_secret + body) (X-MarketingCrm-Signature v1)",
  data: "bearer token (Authorization)",
  mail: "OIDC RS256 push token (Authorization)",
  crm: "HMAC-SHA256 base64 (X-Crm-Signature)",
  payments: "HMAC-SHA256 hex of t.body (Stripe-Signature v1)",
  code_host: "HMAC-SHA256 hex (X-Hub-Signature-256)",
  storefront: "HMAC-SHA256 base64 (X-Shopify-Hmac-Sha256)",
  helpdesk: "HMAC-SHA256 base64 of timestamp + body (X-Zendesk-Webhook-Signature)",
  issue_tracker: "HMAC-SHA256 hex (X-Hub-Signature)",
  project_tracker: "HMAC-SHA256 hex (Linear-Signature)",
  support_chat: "HMAC-SHA1 hex (X-Hub-Signature)",
  telephony: "HMAC-SHA1 base64 of URL + params (X-Twilio-Signature)",
  meetings: "HMAC-SHA256 hex of v0:ts:body (x-zm-signature)",
  incidents: "HMAC-SHA256 hex (X-PagerDuty-Signature)",
  scheduling: "HMAC-SHA256 of t.body (Calendly-Webhook-Signature)",
  forms: "HMAC-SHA256 base64 (Typeform-Signature)",
  esign: "HMAC-SHA256 base64 (X-DocuSign-Signature-N)",
  office_graph: "clientState of every notification",
  analytics: "HMAC-SHA1 hex (X-Signature)",
  warehouse: "bearer token (Authorization)",
  standard: "Standard Webhooks v1 HMAC-SHA256 (webhook-signature)",
  calendar: "channel token (X-Goog-Channel-Token)",
};

/** Sources whose connectors pull events over the platform's authenticated API. */
const CONNECTOR_SCHEMES: Readonly<Record<string, string>> = {
  crm: "OAuth 2.0 JWT bearer stream over TLS",
  mail: "OAuth 2.0 mail API over TLS",
};

/** The scheme a webhook delivery of `source` was verified by (the marketing CRM's by its header). */
export function schemeOf(source: string, headers?: Headers): string {
  if (source === "marketing_crm" && headers?.has("x-marketingcrm-signature-v3"))
    return "HMAC-SHA256 base64 of method + uri + body + timestamp (X-MarketingCrm-Signature-V3)";
  return SCHEMES[source] ?? "verified by its source module";
}

/** A verified webhook delivery's part of its events' origins. */
export function deliveryOrigin(
  source: string,
  headers: Headers,
  rawBody: Uint8Array,
  requestId: string | null,
): DeliveryOrigin {
  return {
    scheme: schemeOf(source, headers),
    delivery_id: requestId,
    payload_sha256: createHash("sha256").update(rawBody).digest("hex"),
  };
}

/**
 * The provenance of an event's entries: the bridge's, or the source's, with its webhook delivery's
 * facts when it came as one (`delivery`), else the event digested as kept.
 */
export function eventProvenance(
  source: string,
  event: { event_id: string; payload: unknown },
  delivery?: DeliveryOrigin,
): Provenance {
  if (source === BRIDGE_SOURCE)
    return { origin: { kind: "bridge", source, event_id: event.event_id }, trust: "operator" };
  const verified = delivery
    ? { ...delivery, digest_of: "raw_body" as const }
    : {
        scheme: CONNECTOR_SCHEMES[source] ?? schemeOf(source),
        delivery_id: null,
        payload_sha256: createHash("sha256")
          .update(JSON.stringify(event.payload ?? null))
          .digest("hex"),
        digest_of: "event" as const,
      };
  return {
    origin: { kind: "source", source, event_id: event.event_id, ...verified },
    trust: "verified",
  };
}
