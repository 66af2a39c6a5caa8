/** Shared helpers of the webhook route tests: real signatures, SOAP messages and read-backs. */

import { expect } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { escapeXml, outboundEnvelope } from "../fakes/crm-outbound.ts";
import type { PlatformSender } from "../fakes/senders/sender.ts";
import { BASE, type Harness, startHarness } from "./harness.ts";

export { escapeXml };

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

export const PLURAL: Record<string, string> = {
  decision: "decisions",
  exception: "exceptions",
  fact: "facts",
  workflow: "workflows",
  relationship: "relationships",
  outcome: "outcomes",
};

/** Sets `<base>_<tenant>` for every pair in the harness environment (read at call time). */
export function setSecrets(h: Harness, tenantId: string, secrets: Record<string, string | undefined>): void {
  for (const [base, value] of Object.entries(secrets)) h.env[`${base}_${tenantId}`] = value;
}

/** A new tenant with each set of webhook secrets set (setSecrets). */
export async function tenantWithSecrets(h: Harness, ...sets: Array<Record<string, string | undefined>>) {
  const t = await h.createTenant();
  for (const secrets of sets) setSecrets(h, t.tenant_id, secrets);
  return t;
}

/** Posts `body` to the sender's webhook route, signed at `now` as its platform signs it. */
export async function postSigned(
  h: Harness,
  sender: PlatformSender,
  tenantId: string,
  body: string,
  now: number,
): Promise<Response> {
  const path = `/webhooks/${sender.source}/${tenantId}`;
  const { headers } = await sender.sign(body, { now, url: `${BASE}${path}` });
  return h.call("POST", path, { raw: body, headers });
}

// ── marketing_crm ───────────────────────────────────────────────────────────────────────────

/** v1: lower-case hex SHA-256 of `client_secret + raw_body`. */
export function marketingV1(secret: string, body: string | Uint8Array): string {
  return createHash("sha256").update(secret).update(body).digest("hex");
}

/** v3: base64 HMAC-SHA256 (key: client secret) over `method + uri + body + timestamp`. */
export function marketingV3(
  secret: string,
  method: string,
  uri: string,
  body: string | Uint8Array,
  timestamp: string,
): string {
  return createHmac("sha256", secret)
    .update(method)
    .update(uri)
    .update(body)
    .update(timestamp)
    .digest("base64");
}

export interface MarketingEvent {
  eventId: number;
  subscriptionId?: number;
  portalId?: number;
  appId: number | string;
  occurredAt: number;
  subscriptionType: string;
  attemptNumber?: number;
  objectId: number;
  propertyName?: string;
  propertyValue?: string;
  changeSource?: string;
  properties?: Record<string, unknown>;
}

/** The dedupe id of a marketing CRM event (SOURCES.md). */
/** Posts marketing_crm events to the tenant's webhook route, signed v3 with `secret` at `now`. */
export function postMarketing(
  h: Harness,
  secret: string,
  tenantId: string,
  events: MarketingEvent[],
  now: number,
): Promise<Response> {
  const body = JSON.stringify(events);
  const path = `/webhooks/marketing_crm/${tenantId}`;
  const ts = String(now);
  return h.call("POST", path, {
    raw: body,
    headers: {
      "content-type": "application/json",
      "x-marketingcrm-signature-v3": marketingV3(secret, "POST", `${BASE}${path}`, body, ts),
      "x-marketingcrm-request-timestamp": ts,
    },
  });
}

export function marketingEventId(ev: MarketingEvent): string {
  return `${ev.subscriptionType}:${ev.objectId}:${ev.occurredAt}:${ev.eventId}`;
}

// ── crm ─────────────────────────────────────────────────────────────────────────────────────

export const SOAP_ACK =
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>';

export const CRM_ORG = "00D5e000000AbCdEAF";

export function crmSignature(secret: string, body: string | Uint8Array): string {
  return createHmac("sha256", secret).update(body).digest("base64");
}

export interface CrmNote {
  id: string;
  type: string;
  fields: Record<string, string | null>;
}

/** A SOAP 1.1 outbound message as the CRM platform sends it. */
export function soapMessage(notes: CrmNote[], org = CRM_ORG): string {
  const body = notes
    .map((n) => {
      const inner = Object.entries(n.fields)
        .map(([k, v]) => (v === null ? `<sf:${k} xsi:nil="true"/>` : `<sf:${k}>${escapeXml(v)}</sf:${k}>`))
        .join("");
      return `<Notification><Id>${n.id}</Id><sObject xsi:type="sf:${n.type}" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">${inner}</sObject></Notification>`;
    })
    .join("");
  return outboundEnvelope(body, org);
}

// ── reading back ────────────────────────────────────────────────────────────────────────────

/** An entry as the API returns it (the fields these tests read). */
export interface EntryView {
  id: string;
  tenant_id: string;
  category: string;
  content: string;
  tags?: string[];
  data?: Record<string, unknown>;
  source: { system: string; event_id?: string; event_type?: string };
  valid_from: string;
  valid_to: string | null;
  invalidated_at: string | null;
  expired_at: string | null;
  supersedes?: string;
  stage?: string;
  amount?: number;
  status?: string;
  severity?: string;
  subject?: string;
  predicate?: string;
  object?: string;
  [field: string]: unknown;
}

/** GET /memory/{plural}/{id} with the tenant's token; expects 200. */
export async function readEntry(h: Harness, token: string, category: string, id: string): Promise<EntryView> {
  const plural = PLURAL[category] ?? category;
  const { status, body } = await h.json("GET", `/memory/${plural}/${id}`, { token });
  expect({ status, id, category }).toEqual({ status: 200, id, category });
  expect(body.id).toBe(id);
  expect(body.category).toBe(category);
  return body as EntryView;
}

/** Reads every written entry and checks its category and source stamp. */
export async function expectEntries(
  h: Harness,
  token: string,
  ids: string[],
  category: string,
  source: { system: string; event_id: string; event_type: string },
): Promise<EntryView[]> {
  const out: EntryView[] = [];
  for (const id of ids) {
    const entry = await readEntry(h, token, category, id);
    expect(entry.source).toMatchObject(source);
    out.push(entry);
  }
  return out;
}

export interface DeadLetterView {
  event_id: string;
  tenant_id: string;
  source: string;
  event_type: string;
  received_at: string;
  attempts: number;
  last_error: string;
  status: "dead" | "replayed";
  payload: unknown;
  headers?: Record<string, string>;
  entries?: string[];
}

export async function deadLetters(h: Harness, tenantId: string, query = ""): Promise<DeadLetterView[]> {
  const { status, body } = await h.json("GET", `/admin/webhooks/dead-letters/${tenantId}${query}`, {
    token: h.adminToken,
  });
  expect(status).toBe(200);
  return body.dead_letters;
}

function replayPath(tenantId: string, eventId: string): string {
  return `/admin/webhooks/replay/${tenantId}/${encodeURIComponent(eventId)}`;
}

/** Replays a dead letter as the operator; the response body parsed. */
export function replay(h: Harness, tenantId: string, eventId: string) {
  return h.json("POST", replayPath(tenantId, eventId), { token: h.adminToken });
}

/** Replays a dead letter as the operator; the raw response (for expectProblem). */
export function replayRaw(h: Harness, tenantId: string, eventId: string): Promise<Response> {
  return h.call("POST", replayPath(tenantId, eventId), { token: h.adminToken });
}

/** A body of `total` bytes produced lazily in chunks; `pulled()` says how much was read. */
export function lazyBody(total: number, chunk = 64 * 1024, fill = 0x20) {
  let sent = 0;
  const block = new Uint8Array(chunk).fill(fill);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const n = Math.min(chunk, total - sent);
      sent += n;
      controller.enqueue(n === chunk ? block : block.slice(0, n));
    },
  });
  return { stream, pulled: () => sent };
}

export interface MappedHarness {
  h: Harness;
  mappingPath: string;
  close(): Promise<void>;
}

/** A harness whose CRM mapping file lives in its own temp dir (empty by default), removed on close. */
export async function startWithCrmMapping(
  prefix: string,
  mapping: object = { version: 1, events: {} },
): Promise<MappedHarness> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const mappingPath = join(dir, "crm-mapping.json");
  writeFileSync(mappingPath, JSON.stringify(mapping));
  const h = await startHarness({ env: { MEMORY_RUNTIME_CRM_MAPPING: mappingPath } });
  return {
    h,
    mappingPath,
    close: async () => {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
