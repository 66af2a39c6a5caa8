/**
 * `crm`: the CRM platform's outbound messages (SOURCES.md). The platform does not sign them;
 * the sender's callout adds `X-Crm-Signature`, a base64 HMAC-SHA256 of the raw body. Accepted
 * deliveries are answered with the SOAP acknowledgement, or the platform resends them.
 */
import { Unauthorized } from "../../errors/domain-errors.ts";
import { clip, isoFrom } from "../kit/draft.ts";
import { decodeUtf8, isRecord } from "../kit/request.ts";
import { hmacScheme, payloads, safeEqual, signatures } from "../kit/signature.ts";
import type { MapResult, SourceContext, SourceEvent, SourceModule, WebhookRequest } from "../types.ts";
import { changeEventOf, fieldText, mapCrmChangeEvent, mapCrmRecord } from "./records.ts";
import { type CrmFields, type OutboundMessage, parseOutboundMessage, SOAP_ACK } from "./soap.ts";

export { type CrmChangeEvent, changeEventOf, mapCrmChangeEvent } from "./records.ts";
export { streamEventOf } from "./stream-event.ts";

const ID = "crm";
const ORG_ID_LENGTH = 15;

/** What parse keeps of each notification; it is also what a replayed dead letter is mapped from. */
export interface CrmOutboundPayload {
  object_type: string;
  fields: CrmFields;
  organization_id?: string;
  action_id?: string;
}

/** `X-Crm-Signature`: base64 HMAC-SHA256 of the raw body. */
const verify = hmacScheme({
  secret: "CRM_WEBHOOK_SECRET",
  hash: "sha256",
  encoding: "base64",
  signatures: signatures.header("x-crm-signature"),
  payload: payloads.body,
});

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
  if (!isRecord(payload) || !isRecord(payload.fields)) {
    // A stream event that is not a change event: the custom mapping may cover it after a reload.
    if (isRecord(payload) && "channel" in payload)
      return { ok: false, reason: "unmapped_event", detail: "not a change event" };
    return { ok: false, reason: "invalid_payload" };
  }
  const fields = payload.fields;
  // Streamed change events (and their replayed dead letters) map with change semantics.
  if (isRecord(payload.change_event_header)) {
    const { Id: _id, ...changed } = fields;
    const change = changeEventOf(
      { ChangeEventHeader: payload.change_event_header, ...changed },
      event.event_id,
    );
    if (change) return mapCrmChangeEvent(change, ctx);
  }
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
