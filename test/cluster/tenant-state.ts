/**
 * One of everything a tenant holds, set and read back through the public HTTP API of a real
 * node, for the takeover test of all tenant state (takeover-all-state.test.ts): entries of each
 * category (one superseded, one retracted, one erased), an idempotent write, webhook deliveries
 * (accepted, dead-lettered), a paused source holding events, a subscription with deliveries, the
 * CRM stream's position and the embedding backlog. `readTenantState` answers all of it as plain
 * data, so the state before a takeover and after it compare with one `toEqual`.
 */
import { expect } from "bun:test";
import { STANDARD_SECRET, standardSender } from "../fakes/senders/standard.ts";
import { WAREHOUSE_TOKEN } from "../fakes/senders/warehouse.ts";
import { type HttpAnswer, httpCall } from "../helpers/server-process.ts";
import { PLURAL } from "../helpers/webhooks.ts";

/** What the set-up wrote, for the read-back and the checks after the takeover. */
export interface TenantState {
  id: string;
  token: string;
  /** Entry ids by category (each category once), and the special ones. */
  entries: Record<string, string>;
  superseded: string;
  retracted: { category: string; id: string };
  erased: { category: string; id: string };
  idempotent: { key: string; body: Record<string, unknown>; id: string };
  /** A warehouse row accepted once (its redelivery is a duplicate). */
  acceptedRow: Record<string, unknown>;
  /** Standard Webhooks bodies held by the paused source. */
  held: string[];
  subscription: string;
}

/** What `readTenantState` answers: each part by name (the test reads some parts field by field). */
// biome-ignore lint/suspicious/noExplicitAny: answers read field by field
export type StateRead = Record<string, any>;

const BACKLOG_TEXT = "waits for its vector";

/** The drafts of the six categories; the outcome names the decision. */
function drafts(decisionId: string): Array<[string, Record<string, unknown>]> {
  return [
    ["exception", { content: "Invoice 4411 bounced twice", severity: "high", tags: ["billing"] }],
    ["fact", { content: `Acme renews in March; ${BACKLOG_TEXT}`, tags: ["acme"] }],
    ["workflow", { content: "Refunds over 500 need a second approver" }],
    ["relationship", { content: "Ada works at Acme", subject: "Ada", predicate: "works_at", object: "Acme" }],
    ["outcome", { content: "Acme signed", decision_id: decisionId, result: "success", amount: 1200 }],
  ];
}

async function created(base: string, token: string, category: string, body: unknown, headers = {}) {
  const answer = await httpCall(base, "POST", `/memory/${PLURAL[category]}`, { token, body, headers });
  expect({ category, status: answer.status }).toEqual({ category, status: 201 });
  return answer.body.id as string;
}

/** Entries of each category, a supersession, a retraction, an erasure and an idempotent write. */
export async function writeEntries(
  base: string,
  tenant: { id: string; token: string },
  admin: string,
): Promise<Pick<TenantState, "entries" | "superseded" | "retracted" | "erased" | "idempotent">> {
  const { token } = tenant;
  const decision = await created(base, token, "decision", { content: "Offer Acme 10% off", agent_id: "a-7" });
  const entries: Record<string, string> = { decision };
  for (const [category, body] of drafts(decision))
    entries[category] = await created(base, token, category, body);
  const superseded = entries.fact!;
  entries.fact = await created(base, token, "fact", {
    content: "Acme renews in April",
    supersedes: superseded,
  });
  const retracted = { category: "workflow", id: entries.workflow! };
  const gone = await httpCall(base, "DELETE", `/memory/workflows/${retracted.id}`, { token });
  expect(gone.status).toBe(200);
  const erased = {
    category: "fact",
    id: await created(base, token, "fact", { content: "Ada's home address" }),
  };
  const erasure = await httpCall(base, "POST", `/admin/tenants/${tenant.id}/erase`, {
    token: admin,
    body: { ids: [erased.id] },
  });
  expect(erasure.body.erased).toEqual([erased]);
  const key = "takeover-idempotency-key";
  const body = { content: "Written once, answered twice" };
  const id = await created(base, token, "fact", body, { "idempotency-key": key });
  return { entries, superseded, retracted, erased, idempotent: { key, body, id } };
}

/** A warehouse delivery through `base`: rows as the export job posts them. */
export function deliverRows(base: string, tenantId: string, rows: unknown[]): Promise<HttpAnswer> {
  return httpCall(base, "POST", `/webhooks/warehouse/${tenantId}`, {
    headers: { authorization: `Bearer ${WAREHOUSE_TOKEN}` },
    body: rows,
  });
}

/** A Standard Webhooks delivery through `base` of an event `body` (signed now). */
export async function deliverStandard(base: string, tenantId: string, body: string): Promise<HttpAnswer> {
  const url = `${base}/webhooks/standard/${tenantId}`;
  const signed = await standardSender.sign(body, { now: Date.now(), url });
  const res = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** The webhook secrets the set-up's deliveries are signed with. */
export const WEBHOOK_SECRETS = {
  STANDARD_WEBHOOK_SECRET: STANDARD_SECRET,
  WAREHOUSE_WEBHOOK_TOKEN: WAREHOUSE_TOKEN,
};

/** An accepted delivery (and so a dedupe record), a dead letter, and two events held by a pause. */
export async function writeWebhookState(
  base: string,
  tenantId: string,
  admin: string,
): Promise<Pick<TenantState, "acceptedRow" | "held">> {
  const acceptedRow = { event_id: "exp-accepted-1", kind: "fact", content: "Exported: Acme pays net 30" };
  const accepted = await deliverRows(base, tenantId, [acceptedRow]);
  expect({ status: accepted.status, accepted: accepted.body.accepted }).toEqual({ status: 200, accepted: 1 });
  const dead = await deliverRows(base, tenantId, [{ event_id: "exp-dead-1", kind: "fact" }]);
  expect(dead.body.dead_lettered).toEqual(["exp-dead-1"]);
  const paused = await httpCall(base, "POST", `/admin/webhooks/sources/${tenantId}/standard/pause`, {
    token: admin,
  });
  expect(paused.body).toEqual({ source: "standard", status: "paused", held: 0 });
  const held = ["u-held-1", "u-held-2"].map((id) =>
    JSON.stringify({ type: "user.created", timestamp: "2026-11-21T09:59:00.000Z", data: { id } }),
  );
  for (const body of held) {
    const answer = await deliverStandard(base, tenantId, body);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 202, body: { held: 1 } });
  }
  return { acceptedRow, held };
}

/** A problem document without the request id each answer carries. */
function withoutRequestId(answer: HttpAnswer) {
  const { request_id: _id, ...rest } = (answer.body ?? {}) as Record<string, unknown>;
  return { status: answer.status, body: rest };
}

async function read(base: string, path: string, token: string) {
  const answer = await httpCall(base, "GET", path, { token });
  return { status: answer.status, body: answer.body };
}

/**
 * Everything the tenant holds, as its public API answers it through `base`: each entry and each
 * category's list, histories, the erased entry's tombstone and a dry-run erasure of it, the
 * idempotent write's replay, dead letters, the webhook delivery log, the sources (pause, held
 * count), the subscription and its delivery log, and the health's counts, backlog and CRM position.
 */
export async function readTenantState(base: string, state: TenantState, admin: string): Promise<StateRead> {
  const { id, token } = state;
  const out: StateRead = {};
  for (const [category, entryId] of Object.entries(state.entries))
    out[`entry ${category}`] = await read(base, `/memory/${PLURAL[category]}/${entryId}`, token);
  for (const plural of Object.values(PLURAL))
    out[`list ${plural}`] = await read(base, `/memory/${plural}?limit=100`, token);
  out["history superseded"] = await read(base, `/memory/facts/${state.superseded}/history`, token);
  const { retracted, erased } = state;
  out["history retracted"] = await read(
    base,
    `/memory/${PLURAL[retracted.category]}/${retracted.id}/history`,
    token,
  );
  out["erased entry"] = withoutRequestId(
    await httpCall(base, "GET", `/memory/${PLURAL[erased.category]}/${erased.id}`, { token }),
  );
  const dryRun = await httpCall(base, "POST", `/admin/tenants/${id}/erase`, {
    token: admin,
    body: { ids: [erased.id], dry_run: true },
  });
  const { erased_at: _at, ...report } = dryRun.body;
  out["erasure dry run"] = { status: dryRun.status, report };
  const replay = await httpCall(base, "POST", "/memory/facts", {
    token,
    body: state.idempotent.body,
    headers: { "idempotency-key": state.idempotent.key },
  });
  out["idempotent replay"] = {
    status: replay.status,
    body: replay.body,
    replayed: replay.headers.get("idempotent-replayed"),
  };
  out["dead letters"] = await read(base, `/admin/webhooks/dead-letters/${id}`, admin);
  out["webhook deliveries"] = await read(base, `/admin/webhooks/deliveries/${id}`, admin);
  out.sources = await read(base, `/admin/webhooks/sources/${id}`, admin);
  out.subscriptions = await read(base, `/admin/subscriptions/${id}`, admin);
  out["subscription deliveries"] = await read(
    base,
    `/admin/subscriptions/${id}/${state.subscription}/deliveries?limit=200`,
    admin,
  );
  out.health = healthState(await httpCall(base, "GET", `/tenants/${id}/healthz`, { token: admin }));
  return out;
}

/**
 * The health's durable part: counts, the embedding backlog, the CRM stream's position and event
 * count (its connection state, reconnects and the embedder's figures belong to the process).
 */
function healthState(answer: HttpAnswer) {
  const { status, vault, index, dead_letters, connectors } = answer.body;
  const crm = connectors?.crm ?? {};
  return {
    http: answer.status,
    status,
    vault,
    vectors: index?.vectors,
    pending_vectors: index?.pending_vectors,
    dead_letters,
    crm: { events: crm.events, replay: crm.replay, last_event_at: crm.last_event_at },
  };
}
