/**
 * `crm`: the CRM platform's outbound messages (SOURCES.md). The platform does not sign them;
 * the sender's callout adds `X-Crm-Signature`, a base64 HMAC-SHA256 of the raw body. Accepted
 * deliveries are answered with the SOAP acknowledgement, or the platform resends them.
 */
import { Unauthorized } from "../errors.ts";
import { fieldText, mapCrmRecord } from "./crm-records.ts";
import { type CrmFields, type OutboundMessage, parseOutboundMessage, SOAP_ACK } from "./crm-soap.ts";
import { clip, isoFrom } from "./draft.ts";
import { decodeUtf8, firstHeader, isRecord } from "./request.ts";
import { hmacSha256, safeEqual } from "./signature.ts";
import type {
  MapResult,
  SourceContext,
  SourceEvent,
  SourceModule,
  VerifyResult,
  WebhookRequest,
} from "./types.ts";

export { type CrmChangeEvent, changeEventOf, mapCrmChangeEvent } from "./crm-records.ts";

const ID = "crm";
const ORG_ID_LENGTH = 15;

/** What parse keeps of each notification; it is also what a replayed dead letter is mapped from. */
export interface CrmOutboundPayload {
  object_type: string;
  fields: CrmFields;
  organization_id?: string;
  action_id?: string;
}

function verify(req: WebhookRequest, ctx: SourceContext): VerifyResult {
  const secret = ctx.secrets.CRM_WEBHOOK_SECRET ?? "";
  if (!secret) return { ok: false, reason: "secret_missing" };
  const signature = firstHeader(req.headers, "x-crm-signature");
  if (!signature) return { ok: false, reason: "missing_signature" };
  const expected = hmacSha256(secret, req.rawBody).toString("base64");
  return safeEqual(signature, expected) ? { ok: true } : { ok: false, reason: "bad_signature" };
}

/** With CRM_ORG_ID set, the message must come from that org (15- and 18-char ids share a prefix). */
function checkOrganization(message: OutboundMessage, ctx: SourceContext): void {
  const expected = ctx.secrets.CRM_ORG_ID?.trim();
  if (!expected) return;
  const given = message.organizationId ?? "";
  if (!safeEqual(given.slice(0, ORG_ID_LENGTH), expected.slice(0, ORG_ID_LENGTH))) {
    throw new Unauthorized("the message's OrganizationId is not this tenant's organisation");
  }
}

function parse(req: WebhookRequest, ctx: SourceContext): SourceEvent[] {
  const message = parseOutboundMessage(decodeUtf8(req.rawBody));
  checkOrganization(message, ctx);
  return message.notifications.map((n) => {
    const payload: CrmOutboundPayload = {
      object_type: n.type,
      fields: n.fields,
      organization_id: message.organizationId,
      action_id: message.actionId,
    };
    return { event_id: n.id, event_type: n.type, payload };
  });
}

function map(event: SourceEvent, ctx: SourceContext): MapResult {
  const payload = event.payload;
  if (!isRecord(payload) || !isRecord(payload.fields)) return { ok: false, reason: "invalid_payload" };
  const fields = payload.fields;
  const f = (name: string) => fieldText(fields, name);
  return mapCrmRecord(
    {
      type: typeof payload.object_type === "string" ? payload.object_type : event.event_type,
      recordId: f("Id"),
      fields,
      source: { system: ID, event_id: clip(event.event_id, 512), event_type: clip(event.event_type, 128) },
      validFrom: isoFrom(f("LastModifiedDate")) ?? isoFrom(f("SystemModstamp")) ?? isoFrom(f("CreatedDate")),
    },
    ctx,
  );
}

/** JSON with every non-ASCII character escaped: header values must be plain ASCII. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function respond(summary: object) {
  return {
    status: 200,
    headers: { "content-type": "text/xml", "x-memory-summary": asciiJson(summary) },
    body: SOAP_ACK,
  };
}

export const crmSource: SourceModule = {
  id: ID,
  requiredSecrets: ["CRM_WEBHOOK_SECRET"],
  optionalSecrets: ["CRM_ORG_ID"],
  verify,
  parse,
  map,
  respond,
};
