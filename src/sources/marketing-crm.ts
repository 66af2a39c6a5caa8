/**
 * `marketing_crm`: a marketing CRM's webhook deliveries (SOURCES.md). Signed with the app's
 * client secret (v1: SHA-256 of secret + body; v3: timestamped HMAC over method, URI and body);
 * the body is a JSON array of up to 100 events, each naming the app it was sent for.
 */
import { BadRequest, Unauthorized } from "../errors/domain-errors.ts";
import {
  amountOf,
  clip,
  currencyOf,
  finish,
  isoFrom,
  isoFromEpoch,
  sourceOf,
  tagsOf,
  text,
} from "./kit/draft.ts";
import { firstHeader, isRecord, parseJsonBody } from "./kit/request.ts";
import { missingField, type Required, valueText } from "./kit/required.ts";
import {
  calledUrl,
  checkTimestamp,
  hmacSha256,
  safeEqual,
  safeEqualAny,
  sha256Hex,
} from "./kit/signature.ts";
import type {
  IngestDraft,
  MapResult,
  SourceContext,
  SourceEvent,
  SourceModule,
  VerifyResult,
  WebhookRequest,
} from "./types.ts";

const ID = "marketing_crm";
const MAX_EVENTS = 100;
const MAX_AGE_MS = 5 * 60 * 1000;

// Our header names first, then the platform's own (SOURCES.md: accept both).
const V1_HEADERS = ["x-marketingcrm-signature", "x-hubspot-signature"];
const V3_HEADERS = ["x-marketingcrm-signature-v3", "x-hubspot-signature-v3"];
const VERSION_HEADERS = ["x-marketingcrm-signature-version", "x-hubspot-signature-version"];
const TIMESTAMP_HEADERS = ["x-marketingcrm-request-timestamp", "x-hubspot-request-timestamp"];

type Event = Record<string, unknown>;

// ── verification ────────────────────────────────────────────────────────────────────────────

// The platform decodes these escapes in the URI before it signs (v3); we accept either form.
const PLATFORM_DECODED: Readonly<Record<string, string>> = {
  "%3A": ":",
  "%2F": "/",
  "%3F": "?",
  "%40": "@",
  "%21": "!",
  "%24": "$",
  "%27": "'",
  "%28": "(",
  "%29": ")",
  "%2A": "*",
  "%2C": ",",
  "%3B": ";",
};

function platformDecoded(uri: string): string {
  return uri.replace(
    /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi,
    (m) => PLATFORM_DECODED[m.toUpperCase()] ?? m,
  );
}

function verifyV3(req: WebhookRequest, ctx: SourceContext, secret: string, signature: string): VerifyResult {
  const stamp = firstHeader(req.headers, ...TIMESTAMP_HEADERS);
  const refused = checkTimestamp(stamp, { unit: "ms", toleranceMs: MAX_AGE_MS }, ctx.now());
  if (refused || stamp === undefined) return { ok: false, reason: refused ?? "missing_timestamp" };
  const uri = calledUrl(req);
  const expected = [uri, platformDecoded(uri)].map((u) =>
    hmacSha256(secret, req.method.toUpperCase(), u, req.rawBody, stamp).toString("base64"),
  );
  return safeEqualAny(signature, expected) ? { ok: true } : { ok: false, reason: "bad_signature" };
}

function verifyV1(req: WebhookRequest, secret: string, signature: string): VerifyResult {
  const version = firstHeader(req.headers, ...VERSION_HEADERS)?.toLowerCase();
  // v2 (the platform's intermediate scheme) adds method and URI; v1 is the default.
  const expected =
    version === "v2"
      ? sha256Hex(secret, req.method.toUpperCase(), calledUrl(req), req.rawBody)
      : sha256Hex(secret, req.rawBody);
  return safeEqual(signature.toLowerCase(), expected) ? { ok: true } : { ok: false, reason: "bad_signature" };
}

function verify(req: WebhookRequest, ctx: SourceContext): VerifyResult {
  const secret = ctx.secrets.MARKETING_CRM_CLIENT_SECRET ?? "";
  if (!secret) return { ok: false, reason: "secret_missing" };
  const v3 = firstHeader(req.headers, ...V3_HEADERS);
  if (v3) return verifyV3(req, ctx, secret, v3);
  const v1 = firstHeader(req.headers, ...V1_HEADERS);
  return v1 ? verifyV1(req, secret, v1) : { ok: false, reason: "missing_signature" };
}

// ── parsing ─────────────────────────────────────────────────────────────────────────────────

function idPart(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? String(value) : undefined;
  if (typeof value === "string") return /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : undefined;
  return undefined;
}

/** `{subscriptionType}:{objectId}:{occurredAt}:{eventId}`, or the name of the field that is unusable. */
function eventIdOf(ev: Event): { id: string } | { bad: string } {
  const type = typeof ev.subscriptionType === "string" ? ev.subscriptionType : "";
  if (!/^[A-Za-z0-9_.-]{1,128}$/.test(type)) return { bad: "subscriptionType" };
  const objectId = idPart(ev.objectId);
  if (objectId === undefined) return { bad: "objectId" };
  const occurredAt = idPart(ev.occurredAt);
  if (occurredAt === undefined) return { bad: "occurredAt" };
  const eventId = idPart(ev.eventId);
  if (eventId === undefined) return { bad: "eventId" };
  return { id: `${type}:${objectId}:${occurredAt}:${eventId}` };
}

function parse(req: WebhookRequest, ctx: SourceContext): SourceEvent[] {
  const body = parseJsonBody(req.rawBody);
  if (!Array.isArray(body)) throw new BadRequest("body must be a JSON array of events");
  if (body.length > MAX_EVENTS) throw new BadRequest(`a delivery carries at most ${MAX_EVENTS} events`);
  const events = body.map((ev, i) => {
    if (!isRecord(ev)) throw new BadRequest(`event ${i} is not an object`);
    return ev;
  });
  // Every event names its app: one sent for another app means the delivery is not for this tenant.
  const appId = ctx.secrets.MARKETING_CRM_APP_ID ?? "";
  if (!appId || events.some((ev) => !safeEqual(text(ev.appId) ?? "", appId))) {
    throw new Unauthorized("an event's appId does not match this tenant's app");
  }
  return events.map((ev, i) => {
    const id = eventIdOf(ev);
    if ("bad" in id) throw new BadRequest(`event ${i} has no valid ${id.bad}`);
    return { event_id: id.id, event_type: String(ev.subscriptionType), payload: ev };
  });
}

// ── mapping ─────────────────────────────────────────────────────────────────────────────────

/**
 * What each type's entry is built from (kit/required.ts): the object it is about, and the portal a
 * contact or company belongs to; a stage change is its new stage. Names and the like are optional.
 */
const REQUIRED: Readonly<Record<string, readonly Required[]>> = {
  "contact.creation": ["objectId", "portalId"],
  "company.creation": ["objectId", "portalId"],
  "deal.propertyChange": ["objectId", "propertyValue"],
  "timeline.creation": ["objectId"],
};

/**
 * A property from `properties` (plain or `{value}` form), or the changed property itself; blank
 * and placeholder values count as absent (kit/required.ts).
 */
function prop(ev: Event, name: string): string | undefined {
  const props = isRecord(ev.properties) ? ev.properties : {};
  const raw = Object.hasOwn(props, name) ? props[name] : undefined;
  const value = valueText(isRecord(raw) ? raw.value : raw);
  if (value !== undefined) return value;
  return ev.propertyName === name ? valueText(ev.propertyValue) : undefined;
}

function contactsOf(ev: Event): string[] | undefined {
  const props = isRecord(ev.properties) ? ev.properties : {};
  const raw = props.contacts ?? ev.contacts ?? ev.associatedContactIds;
  const list = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : [];
  const contacts = list
    .map((c) => text(isRecord(c) ? (c.name ?? c.email ?? c.id) : c))
    .filter((c) => c !== undefined);
  return contacts.length > 0 ? contacts.slice(0, 50) : undefined;
}

function common(ev: Event) {
  return { portal_id: ev.portalId, object_id: ev.objectId, change_source: ev.changeSource };
}

function personName(ev: Event): string {
  const full = [prop(ev, "firstname"), prop(ev, "lastname")].filter(Boolean).join(" ");
  return prop(ev, "name") ?? (full || undefined) ?? prop(ev, "email") ?? `contact ${String(ev.objectId)}`;
}

function mapContact(ev: Event, event: SourceEvent): IngestDraft {
  const name = personName(ev);
  const email = prop(ev, "email");
  const company = prop(ev, "company");
  const origin = prop(ev, "source") ?? prop(ev, "hs_analytics_source");
  const details = [email && `email ${email}`, origin && `source ${origin}`].filter(Boolean).join(", ");
  const draft = finish({
    category: "relationship",
    content: `${name} ${company ? `works at ${company}` : "became a marketing CRM contact"}${details ? ` (${details})` : ""}.`,
    subject: clip(name, 1024),
    predicate: company ? "works_at" : "is_contact_of",
    object: clip(company ?? `marketing CRM portal ${String(ev.portalId)}`, 1024),
    tags: tagsOf("marketing_crm", "contact"),
    data: { name, email, company, source: origin, ...common(ev) },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  return { draft, object_key: `${ID}:contact:${String(ev.objectId)}`, supersede_previous: true };
}

function mapCompany(ev: Event, event: SourceEvent): IngestDraft {
  const name = prop(ev, "name") ?? prop(ev, "domain") ?? `company ${String(ev.objectId)}`;
  const domain = prop(ev, "domain");
  const portal = `marketing CRM portal ${String(ev.portalId)}`;
  const draft = finish({
    category: "relationship",
    content: `${name}${domain ? ` (${domain})` : ""} became a company in the ${portal}.`,
    subject: clip(name, 1024),
    predicate: "is_company_of",
    object: clip(portal, 1024),
    tags: tagsOf("marketing_crm", "company"),
    data: { name, domain, industry: prop(ev, "industry"), ...common(ev) },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  return { draft, object_key: `${ID}:company:${String(ev.objectId)}`, supersede_previous: true };
}

function closeDateOf(ev: Event): string | undefined {
  const raw = prop(ev, "closedate");
  return raw === undefined ? undefined : (isoFrom(raw) ?? raw);
}

function mapClosedWon(ev: Event, event: SourceEvent, deal: string): IngestDraft {
  const amount = amountOf(prop(ev, "amount"));
  const currency = currencyOf(prop(ev, "deal_currency_code") ?? prop(ev, "currency"));
  const closeDate = closeDateOf(ev);
  const contacts = contactsOf(ev);
  const parts = [
    amount !== undefined ? ` for ${amount}${currency ? ` ${currency}` : ""}` : "",
    closeDate ? ` (close date ${closeDate})` : "",
    contacts ? `; contacts: ${contacts.join(", ")}` : "",
  ];
  const draft = finish({
    category: "decision",
    content: `Deal ${deal} was closed won${parts.join("")}.`,
    stage: "closed_won",
    chosen: "closed_won",
    amount,
    currency,
    tags: tagsOf("marketing_crm", "deal", "closed_won"),
    data: { deal_name: deal, amount, currency, close_date: closeDate, contacts, ...common(ev) },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  // The deal's last state: its stage ends here, and what is open about it is resolved.
  return { draft, object_key: `${ID}:deal:${String(ev.objectId)}`, lifecycle: "close" };
}

function mapClosedLost(ev: Event, event: SourceEvent, deal: string): IngestDraft {
  const reason = prop(ev, "closed_lost_reason") ?? prop(ev, "reason") ?? text(ev.reason);
  const draft = finish({
    category: "exception",
    content: `Deal ${deal} was closed lost${reason ? `: ${reason}` : ""}.`,
    severity: "medium",
    status: "open",
    tags: tagsOf("marketing_crm", "deal", "closed_lost"),
    data: {
      deal_name: deal,
      stage: "closed_lost",
      reason,
      amount: amountOf(prop(ev, "amount")),
      ...common(ev),
    },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  // Still an exception (SOURCES.md), and the deal's last state: its stage decision ends here.
  return { draft, object_key: `${ID}:deal:${String(ev.objectId)}`, lifecycle: "close" };
}

function mapStage(ev: Event, event: SourceEvent, deal: string, stage: string): IngestDraft {
  const draft = finish({
    category: "decision",
    content: `Deal ${deal} moved to stage ${stage}.`,
    stage: clip(stage, 128),
    chosen: clip(stage, 4096),
    tags: tagsOf("marketing_crm", "deal"),
    data: { deal_name: deal, stage, amount: amountOf(prop(ev, "amount")), ...common(ev) },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  return { draft, object_key: `${ID}:deal:${String(ev.objectId)}`, lifecycle: "state" };
}

/**
 * The deal as people name it: its name, and the company it is with when the event carries one
 * (`company` or `associatedcompanyname`, as a workflow's webhook may add), unless the name says it.
 */
function dealLabel(ev: Event): string {
  const name = prop(ev, "dealname") ?? String(ev.objectId);
  const company = prop(ev, "company") ?? prop(ev, "associatedcompanyname");
  return company && !name.toLowerCase().includes(company.toLowerCase()) ? `${name} (${company})` : name;
}

function mapDealChange(ev: Event, event: SourceEvent): MapResult {
  if (ev.propertyName !== "dealstage")
    return { ok: false, reason: "unmapped_event", detail: "deal property is not dealstage" };
  const missing = missingField(ev, REQUIRED["deal.propertyChange"]);
  if (missing) return { ok: false, reason: "missing_field", detail: missing };
  const stage = valueText(ev.propertyValue)!;
  const deal = dealLabel(ev);
  const normalised = stage.toLowerCase();
  if (normalised === "closedwon") return { ok: true, drafts: [mapClosedWon(ev, event, deal)] };
  if (normalised === "closedlost") return { ok: true, drafts: [mapClosedLost(ev, event, deal)] };
  return { ok: true, drafts: [mapStage(ev, event, deal, stage)] };
}

function mapTimeline(ev: Event, event: SourceEvent): IngestDraft {
  const title = prop(ev, "title") ?? prop(ev, "name") ?? prop(ev, "text");
  const draft = finish({
    category: "fact",
    content: title
      ? `Timeline event on object ${String(ev.objectId)}: ${title}`
      : `Timeline event on object ${String(ev.objectId)}.`,
    tags: tagsOf("marketing_crm", "timeline"),
    data: { ...common(ev), properties: isRecord(ev.properties) ? ev.properties : undefined },
    valid_from: isoFromEpoch(ev.occurredAt),
    source: sourceOf(ID, event),
  });
  return { draft, object_key: `${ID}:timeline:${String(ev.objectId)}` };
}

function map(event: SourceEvent): MapResult {
  const ev = event.payload;
  if (!isRecord(ev)) return { ok: false, reason: "invalid_payload" };
  // A deal change of another property is unmapped, whatever it lacks: it is checked there.
  const type = typeof ev.subscriptionType === "string" ? ev.subscriptionType : "";
  const rules = Object.hasOwn(REQUIRED, type) && type !== "deal.propertyChange" ? REQUIRED[type] : undefined;
  const missing = missingField(ev, rules);
  if (missing) return { ok: false, reason: "missing_field", detail: missing };
  switch (ev.subscriptionType) {
    case "contact.creation":
      return { ok: true, drafts: [mapContact(ev, event)] };
    case "company.creation":
      return { ok: true, drafts: [mapCompany(ev, event)] };
    case "deal.propertyChange":
      return mapDealChange(ev, event);
    case "timeline.creation":
      return { ok: true, drafts: [mapTimeline(ev, event)] };
    default:
      return { ok: false, reason: "unmapped_event", detail: clip(String(ev.subscriptionType), 128) };
  }
}

export const marketingCrmSource: SourceModule = {
  id: ID,
  requiredSecrets: ["MARKETING_CRM_CLIENT_SECRET", "MARKETING_CRM_APP_ID"],
  optionalSecrets: [],
  verify,
  parse,
  map,
};
