/**
 * Webhook storm: the same events delivered many times at once, singly and inside arrays in other
 * orders, signed payments deliveries, chat reactions arriving before the messages they promote, then
 * concurrent replays of every dead letter racing redeliveries of everything. Exactly-once: each event
 * is accepted by exactly one delivery and has exactly one entry; each dead letter is listed once
 * with one attempt per replay. (test/routes/webhooks-crm.test.ts has the single-dead-letter case of
 * three concurrent CRM replays; this is the many-event, many-source version.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../src/runtime/clock.ts";
import { PAYMENTS_SECRET } from "../fakes/senders/payments.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { deadLetters, replay, setSecrets } from "../helpers/webhooks.ts";
import {
  chatEventId,
  chatMessage,
  invoiceFailed,
  jobEvent,
  jobEventId,
  paymentsHeaders,
  promotion,
  promotionEventId,
  promotionWithoutStage,
} from "../soak/payloads.ts";

const DATA_TOKEN = "storm-data-token";
const JOBS = 24;
const PAYMENTS = 8;
const CHATS = 8;
/** Reactions 0..EARLY-1 reach the bridge before their messages: dead letters until replayed. */
const EARLY = 4;
const COPIES = 3;
const REPLAYS = 4;
/** Versions of 1..8 characters give dead-letter event ids of 59..66 characters (a key-encoding edge). */
const DEAD_VERSIONS = ["1", "12", "123", "1234", "12345", "123456", "1234567", "12345678"];

const own = mkdtempSync(join(tmpdir(), "mrt-storm-"));
let h: Harness;
let tenantId: string;
let token: string;

beforeAll(async () => {
  // A clock that moves on every reading (as a busy server's does between requests): a second write
  // of an event would get its own valid_from, hence its own id, and show as a second entry.
  let last = 0;
  const clock = { ...systemClock, now: () => (last = Math.max(Date.now(), last + 1)) };
  h = await startHarness({ dataDir: join(own, "data"), clock });
  ({ tenant_id: tenantId, token } = await h.createTenant());
  setSecrets(h, tenantId, { DATA_WEBHOOK_TOKEN: DATA_TOKEN, PAYMENTS_WEBHOOK_SECRET: PAYMENTS_SECRET });
});
afterAll(async () => {
  await h.close();
  rmSync(own, { recursive: true, force: true });
});

interface Summary {
  accepted: number;
  entries: string[];
  duplicates: number;
  dead_lettered: string[];
}

const runIds = Array.from({ length: JOBS }, (_, i) => `storm-${i}`);
const paymentIds = Array.from({ length: PAYMENTS }, (_, i) => `evt_storm_${i}`);
const chats = Array.from({ length: CHATS }, (_, i) => i + 1);

async function postData(body: unknown): Promise<Summary> {
  const { status, body: reply } = await h.json("POST", `/webhooks/data/${tenantId}`, {
    headers: { authorization: `Bearer ${DATA_TOKEN}` },
    body,
  });
  expect({ status, reply }).toMatchObject({ status: 200 });
  return reply;
}

async function postPayment(eventId: string): Promise<Summary> {
  const event = invoiceFailed(eventId, Math.floor(Date.now() / 1000));
  const path = `/webhooks/payments/${tenantId}`;
  const raw = JSON.stringify(event);
  const headers = await paymentsHeaders(raw, BASE + path);
  const { status, body: reply } = await h.json("POST", path, { headers, raw });
  expect({ status, reply }).toMatchObject({ status: 200 });
  return reply;
}

/** How many answers list `id` as dead-lettered. */
const deadLetteredIn = (answers: Summary[], id: string) =>
  answers.reduce((n, a) => n + a.dead_lettered.filter((x) => x === id).length, 0);

/** Entries of the tenant by `source event`, over every category (limit 500 covers this test's). */
async function entriesByEvent(): Promise<Map<string, string[]>> {
  const byEvent = new Map<string, string[]>();
  for (const plural of ["facts", "decisions", "exceptions", "workflows", "relationships", "outcomes"]) {
    const { status, body } = await h.json("GET", `/memory/${plural}?limit=500`, { token });
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    for (const e of body.items) {
      const key = `${e.source.system} ${e.source.event_id}`;
      byEvent.set(key, [...(byEvent.get(key) ?? []), e.id]);
    }
  }
  return byEvent;
}

test("concurrent duplicate and out-of-order deliveries, then concurrent replays, give exactly-once entries", async () => {
  const jobs = runIds.map(jobEvent);
  const dead = DEAD_VERSIONS.map(promotionWithoutStage);
  // Arrays carry overlapping slices of the same events, reversed and interleaved with dead ones.
  const arrays = [
    [...jobs.slice(0, 12)].reverse(),
    [...jobs.slice(6, 18), ...dead.slice(0, 4)].reverse(),
    [dead[4], ...jobs.slice(12), dead[5]],
    [...jobs.filter((_, i) => i % 3 === 0), ...dead.slice(6)].reverse(),
  ];
  // The bridge sees events in call order: the EARLY reactions come before their messages.
  const bridgeCalls = [
    ...chats.slice(0, EARLY).map(promotion),
    ...chats.flatMap((n) => [chatMessage(n, `storm message ${n}`), chatMessage(n, `storm message ${n}`)]),
    ...chats.slice(EARLY).flatMap((n) => [promotion(n), promotion(n)]),
  ];
  const bridged = bridgeCalls.map((event) => h.runtime.bridge.deliver(tenantId, event));
  const [dataAnswers, paymentAnswers, bridgeAnswers] = await Promise.all([
    Promise.all([
      ...jobs.flatMap((job) => Array.from({ length: COPIES }, () => postData(job))),
      ...dead.flatMap((d) => Array.from({ length: COPIES }, () => postData(d))),
      ...arrays.map((a) => postData(a)),
    ]),
    Promise.all(paymentIds.flatMap((id) => Array.from({ length: COPIES }, () => postPayment(id)))),
    Promise.all(bridged),
  ]);

  // Each mapped event accepted by exactly one delivery; each dead one dead-lettered by exactly one.
  expect(dataAnswers.reduce((n, a) => n + a.accepted, 0)).toBe(JOBS);
  for (const v of DEAD_VERSIONS) expect(deadLetteredIn(dataAnswers, promotionEventId(v))).toBe(1);
  expect(paymentAnswers.reduce((n, a) => n + a.accepted, 0)).toBe(PAYMENTS);
  const early = bridgeAnswers.slice(0, EARLY);
  expect(early.map((a) => a.dead_lettered)).toEqual(
    chats.slice(0, EARLY).map((n) => [chatEventId(n, "reaction_added")]),
  );
  expect(bridgeAnswers.reduce((n, a) => n + a.entries.length, 0)).toBe(CHATS + CHATS - EARLY);

  // Replays of every dead letter, REPLAYS at once, racing redeliveries of every event.
  const deadIds = DEAD_VERSIONS.map(promotionEventId);
  const reactionIds = chats.slice(0, EARLY).map((n) => chatEventId(n, "reaction_added"));
  const targets = [
    ...deadIds.map((id) => ({ id, source: "data" })),
    ...reactionIds.map((id) => ({ id, source: "messaging" })),
  ];
  const replayOf = ({ id, source }: { id: string; source: string }) =>
    replay(h, tenantId, id).then((r) => ({ id, source, ...r }));
  const [replays, redelivered, listings] = await Promise.all([
    Promise.all(targets.flatMap((target) => Array.from({ length: REPLAYS }, () => replayOf(target)))),
    Promise.all([
      ...jobs.map((job) => postData(job)),
      ...dead.map((d) => postData(d)),
      ...paymentIds.map(postPayment),
      ...chats
        .flatMap((n) => [chatMessage(n, `storm message ${n}`), promotion(n)])
        .map((e) => h.runtime.bridge.deliver(tenantId, e)),
    ]),
    // Listed while replays are being committed: a record is listed once, pending or not.
    Promise.all(Array.from({ length: 4 }, () => deadLetters(h, tenantId, "?limit=1000"))),
  ]);
  for (const listing of listings) {
    const keys = listing.map((d) => `${d.source} ${d.event_id}`);
    expect(keys.length).toBe(new Set(keys).size);
  }
  for (const r of replays) expect({ id: r.id, status: r.status }).toEqual({ id: r.id, status: 200 });
  for (const r of replays.filter((x) => x.source === "data"))
    expect(r.body).toMatchObject({ event_id: r.id, status: "dead", last_error: "missing_field: to_stage" });
  for (const id of reactionIds) {
    const answers = replays.filter((r) => r.id === id).map((r) => r.body);
    expect(answers.every((b) => b.status === "replayed" && b.entries.length === 1)).toBe(true);
    // Every concurrent replay names the same single entry.
    expect(new Set(answers.map((b) => b.entries[0])).size).toBe(1);
  }
  for (const r of redelivered)
    expect({ entries: r.entries, duplicates: r.duplicates }).toEqual({ entries: [], duplicates: 1 });

  // Exactly one entry per event, and nothing else.
  const byEvent = await entriesByEvent();
  const expected = [
    ...runIds.map((r) => `data ${jobEventId(r)}`),
    ...paymentIds.map((id) => `payments ${id}`),
    ...chats.map((n) => `messaging ${chatEventId(n, "message")}`),
    ...chats.map((n) => `messaging ${chatEventId(n, "reaction_added")}`),
  ];
  expect([...byEvent.keys()].sort()).toEqual(expected.sort());
  for (const [event, ids] of byEvent) expect({ event, ids: ids.length }).toEqual({ event, ids: 1 });

  // Each dead letter listed once: missing-field ones with one attempt per replay, reactions replayed once.
  const letters = await deadLetters(h, tenantId, "?limit=1000");
  expect(letters.map((d) => `${d.source} ${d.event_id}`).sort()).toEqual(
    [...deadIds.map((id) => `data ${id}`), ...reactionIds.map((id) => `messaging ${id}`)].sort(),
  );
  for (const d of letters) {
    expect(d).toMatchObject(
      d.source === "data" ? { status: "dead", attempts: 1 + REPLAYS } : { status: "replayed", attempts: 2 },
    );
  }
  const health = await h.json("GET", `/tenants/${tenantId}/healthz`, { token });
  expect(health.body).toMatchObject({
    vault: { present: true, entries: expected.length },
    index: { vectors: expected.length },
    dead_letters: letters.length,
  });
});
