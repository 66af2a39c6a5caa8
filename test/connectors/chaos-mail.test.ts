/**
 * Connector chaos, mail (issue 13 item 5): the fake mail provider answers 401, 429 and 503 with
 * `Retry-After`, 5xx, resets connections and answers slowly, while push notifications arrive
 * (some redelivered). Through the real runtime (webhook route, ingest pipeline, mail-watch actor,
 * vault), on the injected clock:
 *   - every message the mailbox received is stored exactly once (entries counted per message id);
 *   - a failed expansion waits as a dead letter and is replayed by the connector itself after the
 *     API's Retry-After (or its backoff); a failed watch call likewise;
 *   - health shows the error and the pending retry, then the recovery.
 * A seeded random run mixes the faults (TEST_SEED replays one).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import type { DeadLetter } from "../../src/models/dead-letter.ts";
import type { MailStatus } from "../../src/protocols/connector-protocol.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { MessageMeta } from "../../src/sources/mail/api.ts";
import type { Fault } from "../fakes/fault-plan.ts";
import { type FakeMailProvider, startFakeMailProvider } from "../fakes/mail-provider.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { allStored, count, countEntries, emptyFigures, record, report, tally } from "./chaos-ledger.ts";

const EMAIL = "ops@example.com";
const TOPIC = "projects/acme/topics/mail-chaos";
const TOKEN = "/token";
const HISTORY = /\/history$/;
const MESSAGES = /\/messages\/[^/]+$/;
const WATCH = /\/watch$/;
/** Timers due sooner than this are answers held on the clock (a watch renewal is a day away). */
const SHORT_WAIT_MS = 60_000;
const clock = new ManualClock();
const figures = emptyFigures();
let fake: FakeMailProvider;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeMailProvider({ clock, pageSize: 3 });
  h = await startHarness({
    clock,
    env: {
      MAIL_OAUTH_TOKEN_URL: fake.tokenUrl,
      MAIL_API_BASE_URL: fake.apiBaseUrl,
      MAIL_PUBSUB_JWKS_URL: fake.jwksUrl,
    },
  });
});
afterEach(() => fake.faults.clear());
afterAll(async () => {
  await h.close();
  fake.stop();
  figures.faults = { ...fake.faults.injected };
  report("connector-chaos-mail", figures);
});

const until = <T>(probe: () => T | Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 5000 });

/** A tenant whose mail connector runs (a watch on its topic, so expansion starts at the watch's mark). */
async function tenant(start = true): Promise<string> {
  const { tenant_id: t } = await h.createTenant();
  const values: Record<string, string> = {
    MAIL_CLIENT_ID: fake.clientId,
    MAIL_CLIENT_SECRET: fake.clientSecret,
    MAIL_REFRESH_TOKEN: fake.refreshToken,
    MAIL_PUBSUB_TOPIC: TOPIC,
    MAIL_WATCH_EMAIL: EMAIL,
    MAIL_PUBSUB_AUDIENCE: fake.audience,
  };
  for (const [k, v] of Object.entries(values)) h.env[`${k}_${t}`] = v;
  if (start) expect((await h.runtime.startConnectorsFor(t)).mail?.state).toBe("active");
  return t;
}

async function stop(t: string): Promise<void> {
  delete h.env[`MAIL_PUBSUB_TOPIC_${t}`];
  await h.runtime.startConnectorsFor(t);
}

async function adminToken(): Promise<string> {
  const minted = await h.runtime.services.tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 600,
  });
  return minted.token;
}

async function mailStatus(t: string): Promise<MailStatus> {
  const { status, body } = await h.json("GET", `/tenants/${t}/healthz`, { token: await adminToken() });
  expect(status).toBe(200);
  return body.connectors.mail;
}

async function deadLetters(t: string): Promise<DeadLetter[]> {
  const { body } = await h.json("GET", `/admin/webhooks/dead-letters/${t}`, { token: await adminToken() });
  return body.dead_letters;
}

let messageSeq = 0;
let historySeq = 5000;

/** A new message in the mailbox (its own thread: one fact); answers its id. */
function receive(): string {
  const id = `chaos-m${++messageSeq}`;
  const historyId = String(++historySeq);
  const threadId = `chaos-t${messageSeq}`;
  const meta: MessageMeta = {
    id,
    threadId,
    labelIds: ["INBOX"],
    snippet: `Message ${messageSeq}`,
    historyId,
    internalDate: String(clock.now() - 60_000),
    payload: {
      headers: [
        { name: "From", value: "Grace <grace@example.com>" },
        { name: "Subject", value: `Chaos ${messageSeq}` },
        { name: "To", value: EMAIL },
      ],
    },
  };
  fake.messages.set(id, meta);
  fake.history.push({ id: historyId, messagesAdded: [{ message: { id, threadId, labelIds: ["INBOX"] } }] });
  fake.historyId = historyId;
  return id;
}

let pushSeq = 0;
/** A push notification (its own id unless redelivering one); answers the delivery's summary. */
async function push(t: string, messageId = `chaos-push-${++pushSeq}`) {
  const raw = fake.pushBody({ emailAddress: EMAIL, historyId: fake.historyId }, messageId);
  const res = await h.call("POST", `/webhooks/mail/${t}`, {
    raw,
    headers: { authorization: `Bearer ${await fake.signPushToken()}`, "content-type": "application/json" },
  });
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status: 200 });
  return { messageId, body: JSON.parse(text) as { entries: string[]; dead_lettered: string[] } };
}

const storedPerMessage = (t: string) => countEntries(h, t, "facts", (e) => String(e.data?.message_id));

async function expectExactlyOnce(t: string, emitted: string[]): Promise<void> {
  const books = tally(emitted, await storedPerMessage(t));
  record(figures, books);
  expect({ losses: books.losses, doubles: books.doubles, strangers: books.strangers }).toEqual({
    losses: [],
    doubles: [],
    strangers: [],
  });
}

const retryIn = (s: MailStatus) => (s.next_retry_at ? Date.parse(s.next_retry_at) - clock.now() : 0);

/** Every dead letter of the tenant ends replayed: the connector caught up on its own. */
async function waitAllReplayed(t: string): Promise<DeadLetter[]> {
  const letters = await until(
    () => deadLetters(t),
    (all) => all.every((l) => l.status === "replayed"),
  );
  count(figures, "dead letters caught up by the connector", letters.length);
  return letters;
}

/**
 * Drives the clock until every emitted message is stored, no retry waits and every planned fault
 * is spent: a pending retry is waited out to its `next_retry_at`, an answer held on the clock is
 * released. Bounded.
 */
async function settle(t: string, emitted: string[]): Promise<void> {
  for (let step = 0; step < 60; step++) {
    const move = await until(
      async () => {
        if (fake.faults.holding > 0) {
          const due = clock.dueTimes().filter((at) => at > clock.now() && at - clock.now() < SHORT_WAIT_MS);
          return due.length > 0 ? Math.min(...due) - clock.now() : undefined;
        }
        const s = await mailStatus(t);
        // A retry already due is on its way (health says pending until it went through).
        if ((s.pending_retries ?? 0) > 0) return retryIn(s) > 0 ? retryIn(s) : undefined;
        const done = fake.faults.planned === 0 && allStored(emitted, await storedPerMessage(t));
        return done ? "done" : undefined;
      },
      (m) => m !== undefined,
    );
    if (move === "done") return;
    clock.advance(move as number);
  }
  throw new Error("the mail connector did not settle within 60 steps");
}

describe("mail watch under faults", () => {
  test("a 429 with Retry-After is retried exactly then; health shows retrying with the error, then active", async () => {
    const t = await tenant(false);
    try {
      fake.faults.next(WATCH, 1, { kind: "status", status: 429, retryAfter: 30 });
      const startedAt = clock.now();
      const { mail } = await h.runtime.startConnectorsFor(t);
      expect(mail).toMatchObject({
        state: "retrying",
        last_error: "watch failed: 429 (watch: mail API answered 429)",
        last_error_at: new Date(startedAt).toISOString(),
        next_renewal_at: new Date(startedAt + 30_000).toISOString(),
      });
      expect((await mailStatus(t)).state).toBe("retrying");
      const watches = fake.faults.seen(WATCH).length;
      clock.advance(29_999);
      expect(fake.faults.seen(WATCH)).toHaveLength(watches);
      clock.advance(1);
      const s = await until(
        () => mailStatus(t),
        (x) => x.state === "active",
      );
      expect(fake.faults.seen(WATCH).at(-1)!.at).toBe(startedAt + 30_000);
      expect(s).toMatchObject({
        last_error: null,
        last_renewed_at: new Date(startedAt + 30_000).toISOString(),
      });
    } finally {
      await stop(t);
    }
  });

  test("the token endpoint's 503 with an HTTP-date Retry-After, then a 500: the date, then the backoff", async () => {
    const t = await tenant(false);
    try {
      const startedAt = clock.now();
      const at = Math.ceil((startedAt + 10_000) / 1000) * 1000;
      fake.faults.next(TOKEN, 1, { kind: "status", status: 503, retryAfter: new Date(at).toUTCString() });
      fake.faults.next(WATCH, 1, { kind: "status", status: 500 });
      const { mail } = await h.runtime.startConnectorsFor(t);
      expect(mail!.last_error).toBe("watch failed: 503 (token exchange: answered 503)");
      expect(mail!.next_renewal_at).toBe(new Date(at).toISOString());
      clock.advance(at - clock.now());
      const failed = await until(
        () => mailStatus(t),
        (s) => s.last_error === "watch failed: 500 (watch: mail API answered 500)",
      );
      // The second failure in a row: the backoff's second step, 1 to 2 s.
      expect(retryIn({ ...failed, next_retry_at: failed.next_renewal_at })).toBeGreaterThanOrEqual(1000);
      expect(retryIn({ ...failed, next_retry_at: failed.next_renewal_at })).toBeLessThanOrEqual(2000);
      clock.advance(2000);
      await until(
        () => mailStatus(t),
        (s) => s.state === "active" && s.last_error === null,
      );
    } finally {
      await stop(t);
    }
  });
});

describe("mail expansion under faults", () => {
  test("history answered 429 with Retry-After: a dead letter, pending in health, replayed by the connector exactly then", async () => {
    const t = await tenant();
    try {
      const emitted = [receive(), receive()];
      fake.faults.next(HISTORY, 1, { kind: "status", status: 429, retryAfter: 5 });
      const { messageId, body } = await push(t);
      expect(body.dead_lettered).toEqual([messageId]);
      const refusedAt = fake.faults.seen(HISTORY).at(-1)!.at;
      const s = await mailStatus(t);
      expect(s).toMatchObject({
        pending_retries: 1,
        next_retry_at: new Date(refusedAt + 5000).toISOString(),
        last_error: "expansion failed: 429 (list history: mail API answered 429)",
      });
      expect((await deadLetters(t))[0]).toMatchObject({
        event_id: messageId,
        status: "dead",
        last_error: "mail_api_error: 429 (list history: mail API answered 429)",
      });
      const reads = fake.faults.seen(HISTORY).length;
      clock.advance(4999);
      expect(fake.faults.seen(HISTORY)).toHaveLength(reads);
      clock.advance(1);
      await waitAllReplayed(t);
      expect(fake.faults.seen(HISTORY)[reads]!.at).toBe(refusedAt + 5000);
      const after = await until(
        () => mailStatus(t),
        (x) => x.pending_retries === 0,
      );
      expect(after.next_retry_at).toBeUndefined();
      expect(after.last_expanded_at).toBe(new Date(refusedAt + 5000).toISOString());
      await expectExactlyOnce(t, emitted);
    } finally {
      await stop(t);
    }
  });

  test("a message answered 503, a later notification takes the whole gap, the retry finds nothing new", async () => {
    const t = await tenant();
    try {
      const emitted = [receive(), receive()];
      fake.faults.next(MESSAGES, 1, { kind: "status", status: 503 });
      const first = await push(t);
      expect(first.body.dead_lettered).toEqual([first.messageId]);
      const waiting = await mailStatus(t);
      expect(waiting.pending_retries).toBe(1);
      // No Retry-After: the backoff's first step (0.5 to 1 s).
      expect(retryIn(waiting)).toBeGreaterThanOrEqual(500);
      expect(retryIn(waiting)).toBeLessThanOrEqual(1000);
      emitted.push(receive());
      const second = await push(t);
      expect(second.body.entries).toHaveLength(3);
      clock.advance(retryIn(waiting));
      const [letter] = await waitAllReplayed(t);
      expect(letter).toMatchObject({ event_id: first.messageId, entries: [] });
      await expectExactlyOnce(t, emitted);
    } finally {
      await stop(t);
    }
  });

  test("a reset connection, then a revoked access token (one token exchange) and a slow answer: all waited out", async () => {
    const t = await tenant();
    try {
      const emitted = [receive()];
      const tokens = fake.hits.token;
      fake.revokeAccessTokens();
      fake.faults.next(HISTORY, 1, { kind: "drop" });
      const first = await push(t);
      expect(first.body.dead_lettered).toEqual([first.messageId]);
      expect((await mailStatus(t)).last_error).toBe(
        "expansion failed: 0 (list history: connection lost mid-answer)",
      );
      // The retry meets the revoked token (401: renewed once), then its history read is held 3 s on the clock.
      fake.faults.next(HISTORY, 1, { kind: "delay", ms: 3000 });
      emitted.push(receive());
      await settle(t, emitted);
      await waitAllReplayed(t);
      expect(fake.hits.token).toBe(tokens + 1);
      await expectExactlyOnce(t, emitted);
    } finally {
      await stop(t);
    }
  });
});

describe("mail: a seeded random mix of faults and redeliveries", () => {
  const seed = testSeed();
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  // CHAOS_ROUNDS raises it for a longer local run.
  const ROUNDS = Number(process.env.CHAOS_ROUNDS) || 16;

  const status = (code: number, retryAfter?: number): Fault => ({
    kind: "status",
    status: code,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
  /**
   * A round's fault (`times` in a row), and whether the access token is revoked first (so the token
   * endpoint is asked).
   */
  const menu: Array<() => { path: string | RegExp; fault: Fault; times?: number; revoke?: boolean }> = [
    () => ({ path: HISTORY, fault: status(429, 1 + int(5)) }),
    () => ({ path: HISTORY, fault: status(503, 1 + int(5)) }),
    () => ({ path: HISTORY, fault: status([500, 502, 504][int(3)]!) }),
    () => ({ path: MESSAGES, fault: status(503, 1 + int(3)) }),
    () => ({ path: MESSAGES, fault: { kind: "drop" } }),
    () => ({ path: HISTORY, fault: { kind: "drop" }, times: 1 + int(2) }),
    () => ({ path: HISTORY, fault: { kind: "delay", ms: 500 + int(4000) } }),
    () => ({ path: MESSAGES, fault: { kind: "delay", ms: 500 + int(2000) } }),
    () => ({ path: TOKEN, fault: status(429, 1 + int(5)), revoke: true }),
    () => ({ path: TOKEN, fault: status(500), revoke: true }),
  ];

  test(`${ROUNDS} rounds: every message stored exactly once, every dead letter caught up (seed ${seed})`, async () => {
    const t = await tenant();
    try {
      const emitted: string[] = [];
      const pushed: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const { path, fault, times = 1, revoke } = menu[int(menu.length)]!();
        if (revoke) fake.revokeAccessTokens();
        fake.faults.next(path, times, fault);
        for (let i = 1 + int(3); i > 0; i--) emitted.push(receive());
        // A held answer holds the notification's delivery too: it completes once the clock moves.
        const delivery = push(t);
        // Now and then the push service delivers a notification again (at least once).
        const again = pushed.length > 0 && random() < 0.3 ? push(t, pushed[int(pushed.length)]) : undefined;
        if (again) count(figures, "redelivered notifications");
        if (fault.kind !== "delay") await delivery;
        await settle(t, emitted);
        pushed.push((await delivery).messageId);
        await again;
      }
      await settle(t, emitted);
      await waitAllReplayed(t);
      const s = await until(
        () => mailStatus(t),
        (x) => x.pending_retries === 0,
      );
      expect(s.state).toBe("active");
      await expectExactlyOnce(t, emitted);
    } finally {
      await stop(t);
    }
  });
});
