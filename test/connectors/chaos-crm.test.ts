/**
 * Connector chaos, CRM stream (issue 13 item 5): the fake CRM platform drops connections, cuts
 * streams mid-event, answers 401, 429 and 503 with `Retry-After`, 5xx, slowly, and sends Bayeux
 * advice (interval, reconnect=retry|handshake|none, an expired session). Through the real runtime
 * (actor, ingest pipeline, vault), on the injected clock:
 *   - every event the fake emitted is stored exactly once (entries counted per event id);
 *   - the connector waits exactly what the server said (request times on the clock);
 *   - health shows the error, the wait, then the recovery;
 *   - an expired Bayeux session costs no token exchange, a 401 exactly one.
 * A seeded random run per transport then mixes every fault (TEST_SEED replays one).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import type { CrmStatus } from "../../src/protocols/connector-protocol.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  startFakeCrmPlatform,
} from "../fakes/crm-platform.ts";
import type { Fault } from "../fakes/fault-plan.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { setSecrets } from "../helpers/webhooks.ts";
import { allStored, count, countEntries, emptyFigures, record, report, tally } from "./chaos-ledger.ts";

const clock = new ManualClock();
const keys = crmKeyPair();
const STREAM = "/stream";
const TOKEN = "/services/oauth2/token";
const HANDSHAKE = "/cometd/62.0/handshake";
const CONNECT = "/cometd/62.0/connect";
/** Timers due sooner than this are waits a fault or the server imposed (the silence watchdog is 120 s). */
const SHORT_WAIT_MS = 60_000;
/** The connector's backoff is capped at 5 min (the harness's admin token lasts an hour of clock time). */
const LONGER_THAN_ANY_BACKOFF_MS = 10 * 60_000;
const figures = emptyFigures();
let fake: FakeCrmPlatform;
let h: Harness;
/** Connections dropped by the tests themselves (to make a connector reconnect into a planned fault). */
let drops = 0;

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, clock, pollMs: 150 });
  h = await startHarness({ clock });
});
afterEach(() => fake.faults.clear());
afterAll(async () => {
  await h.close();
  fake.stop();
  figures.faults = { ...fake.faults.injected, ...(drops > 0 ? { connection_drop: drops } : {}) };
  report("connector-chaos-crm", figures);
});

const until = <T>(probe: () => T | Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 5000 });

async function tenant(transport: "sse" | "bayeux"): Promise<string> {
  const { tenant_id: t } = await h.createTenant();
  setSecrets(h, t, crmConnectorSecrets(fake, keys, transport));
  await h.runtime.startConnectorsFor(t);
  await waitState(t, "connected");
  return t;
}

/** Stops a tenant's connector (its secrets go away), so that the next test's faults reach only its own. */
async function stop(t: string): Promise<void> {
  delete h.env[`CRM_CLIENT_ID_${t}`];
  await h.runtime.startConnectorsFor(t);
}

/** The clock moves hours in some tests: every health read gets a fresh operator token. */
async function crmStatus(t: string): Promise<CrmStatus> {
  const { token } = await h.runtime.services.tokens.mint({
    sub: "operator",
    tenantId: OPERATOR_TENANT_ID,
    roles: [],
    admin: true,
    ttlSeconds: 600,
  });
  const { status, body } = await h.json("GET", `/tenants/${t}/healthz`, { token });
  expect(status).toBe(200);
  return body.connectors.crm;
}

const waitState = (t: string, state: CrmStatus["state"], error?: string) =>
  until(
    () => crmStatus(t),
    (s) => s?.state === state && (error === undefined || (s.last_error ?? "").startsWith(error)),
  );

const retryIn = (s: CrmStatus) => Date.parse(s.next_retry_at!) - clock.now();

let taskSeq = 0;
/** Emits one change event (a Task: one fact entry) and answers the id it is stored under. */
function emit(): string {
  taskSeq++;
  return fake.publish("Task", "CREATE", [`00Tch${taskSeq}`], { Subject: `Chaos task ${taskSeq}` }).uuid;
}

const storedPerEvent = (t: string) => countEntries(h, t, "facts", (e) => e.source.event_id);

const waitStored = (t: string, emitted: string[]) =>
  until(
    () => storedPerEvent(t),
    (stored) => allStored(emitted, stored),
  );

/** Every emitted event stored exactly once, nothing else; the books go into the suite's figures. */
async function expectExactlyOnce(t: string, emitted: string[]): Promise<void> {
  const books = tally(emitted, await storedPerEvent(t));
  record(figures, books);
  expect({ losses: books.losses, doubles: books.doubles, strangers: books.strangers }).toEqual({
    losses: [],
    doubles: [],
    strangers: [],
  });
}

/** Drops every connection, counted as a fault of its own. */
function dropConnections(): void {
  drops++;
  fake.dropConnections();
}

/**
 * Drives the clock until the connector is connected with every emitted event stored and every
 * planned fault spent: a backoff is waited out to its `next_retry_at`, a short timer (a slow
 * answer held on the clock, an advised interval) to when it falls due. Bounded.
 */
async function settle(t: string, emitted: string[]): Promise<void> {
  for (let step = 0; step < 60; step++) {
    const advance = await next(t, emitted).catch(async (error) => {
      throw new Error(`${error.message}; ${await diagnosis(t, emitted)}`);
    });
    if (advance === "done") return;
    clock.advance(advance as number);
  }
  throw new Error(`the connector did not settle within 60 steps; ${await diagnosis(t, emitted)}`);
}

/** What the connector and the fake look like, for a failure message. */
async function diagnosis(t: string, emitted: string[]): Promise<string> {
  const stored = await storedPerEvent(t);
  return JSON.stringify({
    status: await crmStatus(t),
    planned: fake.faults.planned,
    due: clock.dueTimes().map((at) => at - clock.now()),
    missing: emitted.filter((id) => !stored.has(id)).length,
    requests: fake.faults.requests.slice(-6),
  });
}

/**
 * The next move of `settle`: how far to advance the clock, or "done". Time moves only to a wait
 * the connector is in (its backoff, an advised interval) or to release an answer held on the
 * clock; never while a reconnect is on its way, so every wait is measured from the answer that
 * asked for it (other timers, such as the tenant's index lull, are left alone).
 */
function next(t: string, emitted: string[]): Promise<number | "done" | undefined> {
  return until(
    async () => {
      const s = await crmStatus(t);
      // A backoff already due: its timer fired and the reconnect is on its way.
      if (s.state === "backoff") return retryIn(s) > 0 ? retryIn(s) : undefined;
      const due = clock.dueTimes().filter((at) => at > clock.now());
      const held = fake.faults.holding > 0 ? due.filter((at) => at - clock.now() < SHORT_WAIT_MS) : [];
      const wanted = [...held, ...due.filter((at) => advisedPauses().has(at))];
      if (wanted.length > 0) return Math.min(...wanted) - clock.now();
      // An SSE stream cut just after its last event leaves the connector "connected" until it reads
      // the end: settled means the stream it is connected on is still open.
      const open = s.transport !== "sse" || fake.latestStreamOpen();
      const done =
        s.state === "connected" &&
        open &&
        fake.faults.planned === 0 &&
        allStored(emitted, await storedPerEvent(t));
      return done ? "done" : undefined;
    },
    (a) => a !== undefined,
  );
}

/** When the Bayeux transport's advised pauses end: the advised request's time plus its interval. */
function advisedPauses(): Set<number> {
  const ends = new Set<number>();
  for (const r of fake.faults.requests)
    if (r.planned?.kind === "advice" && r.planned.interval) ends.add(r.at + r.planned.interval);
  return ends;
}

/** The wait a fault imposes on the connector's next request: a `Retry-After` exactly, an advised interval at least. */
function waitOf(fault: Fault | undefined): { ms: number; exact: boolean } | undefined {
  if (fault?.kind === "status" && typeof fault.retryAfter === "number")
    return { ms: fault.retryAfter * 1000, exact: true };
  if (fault?.kind === "advice" && fault.interval) return { ms: fault.interval, exact: false };
  return undefined;
}

/** Checks, for every request since `from` whose fault named a wait, when the next request came. */
function checkServerWaits(from: number): number {
  const requests = fake.faults.requests.slice(from);
  let checked = 0;
  requests.forEach((request, i) => {
    const next = requests[i + 1];
    const wait = waitOf(request.planned);
    if (wait === undefined || next === undefined) return;
    const expected = request.at + wait.ms;
    if (wait.exact)
      expect({ after: request.fault, at: next.at }).toEqual({ after: request.fault, at: expected });
    else expect(next.at).toBeGreaterThanOrEqual(expected);
    checked++;
  });
  return checked;
}

describe("CRM stream over SSE under faults", () => {
  let t: string;
  afterEach(async () => {
    if (t) await stop(t);
  });

  test("a 429 with Retry-After: health shows the error and the wait, the stream reopens exactly then, nothing lost or doubled", async () => {
    t = await tenant("sse");
    const emitted = [emit(), emit()];
    await waitStored(t, emitted);
    fake.faults.next(STREAM, 1, { kind: "status", status: 429, retryAfter: 2 });
    dropConnections();
    // The drop is a first failure: the connector's own backoff, then the reconnect meets the 429.
    clock.advance(retryIn(await waitState(t, "backoff")));
    const refused = await waitState(t, "backoff", "stream answered 429");
    const refusedAt = fake.faults.seen(STREAM).at(-1)!.at;
    expect(refused.next_retry_at).toBe(new Date(refusedAt + 2000).toISOString());
    expect(refused.last_error_at).toBe(new Date(refusedAt).toISOString());
    emitted.push(emit(), emit());
    const streams = fake.faults.seen(STREAM).length;
    clock.advance(1999);
    expect(fake.faults.seen(STREAM)).toHaveLength(streams);
    clock.advance(1);
    const recovered = await waitState(t, "connected");
    expect(fake.faults.seen(STREAM)[streams]!.at).toBe(refusedAt + 2000);
    expect(recovered.connected_at).toBe(new Date(refusedAt + 2000).toISOString());
    await waitStored(t, emitted);
    expect((await crmStatus(t)).last_event_at).toBe(new Date(refusedAt + 2000).toISOString());
    await expectExactlyOnce(t, emitted);
  });

  test("5xx without Retry-After: the connector's own exponential backoff, then recovery", async () => {
    t = await tenant("sse");
    const emitted = [emit()];
    await waitStored(t, emitted);
    for (const status of [500, 502, 503]) fake.faults.next(STREAM, 1, { kind: "status", status });
    dropConnections();
    const waits: number[] = [];
    for (const error of [
      "stream closed",
      "stream answered 500",
      "stream answered 502",
      "stream answered 503",
    ]) {
      const s = await waitState(t, "backoff", error);
      waits.push(retryIn(s));
      if (waits.length === 2) emitted.push(emit());
      clock.advance(retryIn(s));
    }
    // Equal jitter around 1, 2, 4 and 8 s: each wait at least half its step and at most the step.
    waits.forEach((wait, attempt) => {
      expect(wait).toBeGreaterThanOrEqual(500 * 2 ** attempt);
      expect(wait).toBeLessThanOrEqual(1000 * 2 ** attempt);
    });
    await waitState(t, "connected");
    await waitStored(t, emitted);
    await expectExactlyOnce(t, emitted);
  });

  test("a 401 costs exactly one new token, at once; the token endpoint's 429 Retry-After is waited out", async () => {
    t = await tenant("sse");
    const emitted = [emit()];
    await waitStored(t, emitted);
    const assertions = fake.assertions.length;
    fake.faults.next(STREAM, 1, { kind: "status", status: 401 });
    fake.faults.next(TOKEN, 1, { kind: "status", status: 429, retryAfter: 3 });
    dropConnections();
    clock.advance(retryIn(await waitState(t, "backoff", "stream closed")));
    const s = await waitState(t, "backoff", "authentication failed: token endpoint answered 429");
    const tokenAt = fake.faults.seen(TOKEN).at(-1)!.at;
    // No wait between the 401 and the new assertion; then the wait the token endpoint named.
    expect(tokenAt).toBe(fake.faults.seen(STREAM).at(-1)!.at);
    expect(Date.parse(s.next_retry_at!)).toBe(tokenAt + 3000);
    emitted.push(emit());
    clock.advance(3000);
    await waitState(t, "connected");
    expect(fake.faults.seen(TOKEN).at(-1)!.at).toBe(tokenAt + 3000);
    expect(fake.assertions.length).toBe(assertions + 1);
    await waitStored(t, emitted);
    await expectExactlyOnce(t, emitted);
  });

  test("a stream cut after K events (the next one half sent) and a reset connection: resumed from the committed cursor", async () => {
    t = await tenant("sse");
    const emitted = [emit()];
    await waitStored(t, emitted);
    fake.faults.next(STREAM, 1, { kind: "cut", afterEvents: 2, midFrame: true });
    fake.faults.next(STREAM, 1, { kind: "drop" });
    dropConnections();
    // A backlog while away: the cut stream brings two, loses half of the third, then drops.
    emitted.push(emit(), emit(), emit(), emit());
    await settle(t, emitted);
    expect(fake.faults.injected.cut).toBeGreaterThanOrEqual(1);
    await expectExactlyOnce(t, emitted);
  });

  test("slow answers held on the clock: health says connecting until they come, then connected", async () => {
    fake.faults.next(TOKEN, 1, { kind: "delay", ms: 4000 });
    fake.faults.next(STREAM, 1, { kind: "delay", ms: 3000 });
    const { tenant_id } = await h.createTenant();
    t = tenant_id;
    Object.assign(h.env, {
      [`CRM_CLIENT_ID_${t}`]: fake.clientId,
      [`CRM_PRIVATE_KEY_${t}`]: keys.privateKeyBase64,
      [`CRM_USERNAME_${t}`]: fake.username,
      [`CRM_INSTANCE_URL_${t}`]: fake.url,
      [`CRM_STREAM_URL_${t}`]: fake.streamUrl,
    });
    const startedAt = clock.now();
    await h.runtime.startConnectorsFor(t);
    await until(
      () => clock.dueTimes(),
      (due) => due.includes(startedAt + 4000),
    );
    expect((await crmStatus(t)).state).toBe("connecting");
    clock.advance(4000);
    await until(
      () => clock.dueTimes(),
      (due) => due.includes(startedAt + 7000),
    );
    expect((await crmStatus(t)).state).toBe("connecting");
    clock.advance(3000);
    const s = await waitState(t, "connected");
    expect(s.connected_at).toBe(new Date(startedAt + 7000).toISOString());
    const emitted = [emit(), emit()];
    await waitStored(t, emitted);
    await expectExactlyOnce(t, emitted);
  });
});

describe("CRM stream over Bayeux under faults", () => {
  let t: string;
  afterEach(async () => {
    if (t) await stop(t);
  });

  test("advice.interval with reconnect=retry is waited on the clock before the next connect", async () => {
    t = await tenant("bayeux");
    const emitted = [emit()];
    await waitStored(t, emitted);
    const seen = fake.faults.seen(CONNECT).length;
    fake.faults.next(CONNECT, 1, { kind: "advice", reconnect: "retry", interval: 2500 });
    const advised = await until(
      () =>
        fake.faults
          .seen(CONNECT)
          .slice(seen)
          .find((r) => r.fault === "advice:retry"),
      Boolean,
    );
    await until(
      () => clock.dueTimes(),
      (due) => due.includes(advised!.at + 2500),
    );
    const connects = fake.faults.seen(CONNECT).length;
    emitted.push(emit());
    clock.advance(2499);
    expect(fake.faults.seen(CONNECT)).toHaveLength(connects);
    clock.advance(1);
    await waitStored(t, emitted);
    expect(fake.faults.seen(CONNECT)[connects]!.at).toBe(advised!.at + 2500);
    expect((await crmStatus(t)).state).toBe("connected");
    await expectExactlyOnce(t, emitted);
  });

  test("an expired session (402::Unknown client, reconnect=handshake) handshakes again after the interval with no token exchange", async () => {
    t = await tenant("bayeux");
    const emitted = [emit()];
    await waitStored(t, emitted);
    const before = { tokens: fake.hits.token, assertions: fake.assertions.length };
    const authentications = (await crmStatus(t)).authentications;
    const handshakes = fake.faults.seen(HANDSHAKE).length;
    const seen = fake.faults.seen(CONNECT).length;
    fake.faults.next(
      CONNECT,
      1,
      { kind: "advice", reconnect: "handshake", interval: 1000, error: "402::Unknown client" },
      "session_expired",
    );
    const expired = await until(
      () =>
        fake.faults
          .seen(CONNECT)
          .slice(seen)
          .find((r) => r.fault === "session_expired"),
      Boolean,
    );
    await until(
      () => clock.dueTimes(),
      (due) => due.includes(expired!.at + 1000),
    );
    emitted.push(emit());
    clock.advance(1000);
    await waitStored(t, emitted);
    const renewed = fake.faults.seen(HANDSHAKE).slice(handshakes);
    expect(renewed.map((r) => r.at)).toEqual([expired!.at + 1000]);
    // Health shows the new session (connected again from then), and no new authentication.
    const s = await crmStatus(t);
    expect(s).toMatchObject({
      state: "connected",
      authentications,
      connected_at: new Date(expired!.at + 1000).toISOString(),
    });
    expect({ tokens: fake.hits.token, assertions: fake.assertions.length }).toEqual(before);
    count(figures, "token exchanges after a session expiry", fake.assertions.length - before.assertions);
    await expectExactlyOnce(t, emitted);
  });

  test("reconnect=none: the connector halts, health says why, nothing more is asked; a restart resumes from the stored replay id", async () => {
    t = await tenant("bayeux");
    const emitted = [emit()];
    await waitStored(t, emitted);
    fake.faults.next(CONNECT, 1, { kind: "advice", reconnect: "none" });
    const halted = await waitState(t, "halted");
    expect(halted.last_error).toBe("connect: server advised not to reconnect");
    expect(halted.next_retry_at).toBeUndefined();
    const requests = fake.faults.requests.length;
    emitted.push(emit());
    // Longer than the longest backoff (5 min): no reconnect was scheduled.
    clock.advance(LONGER_THAN_ANY_BACKOFF_MS);
    expect((await crmStatus(t)).state).toBe("halted");
    expect(fake.faults.requests).toHaveLength(requests);
    // The operator's move (here: a changed secret restarts it) brings what was published meanwhile.
    h.env[`CRM_API_VERSION_${t}`] = "62.0";
    await h.runtime.startConnectorsFor(t);
    await waitState(t, "connected");
    await waitStored(t, emitted);
    await expectExactlyOnce(t, emitted);
  });

  test("429 Retry-After on the handshake, a cut connect (events taken, then the connection lost): waits as told, nothing lost or doubled", async () => {
    t = await tenant("bayeux");
    const emitted = [emit()];
    await waitStored(t, emitted);
    const from = fake.faults.requests.length;
    fake.faults.next(CONNECT, 1, { kind: "cut", afterEvents: 1 });
    fake.faults.next(HANDSHAKE, 1, { kind: "status", status: 429, retryAfter: 5 });
    emitted.push(emit(), emit());
    clock.advance(retryIn(await waitState(t, "backoff", "connect: connection lost mid-answer")));
    const refused = await waitState(t, "backoff", "handshake: answered 429");
    const refusedAt = fake.faults.seen(HANDSHAKE).at(-1)!.at;
    expect(refused.next_retry_at).toBe(new Date(refusedAt + 5000).toISOString());
    await settle(t, emitted);
    const next = fake.faults.requests.slice(from).find((r) => r.at > refusedAt);
    expect(next).toMatchObject({ path: HANDSHAKE, at: refusedAt + 5000 });
    await expectExactlyOnce(t, emitted);
  });
});

describe("CRM stream: a seeded random mix of every fault", () => {
  const seed = testSeed();
  const random = seededRandom(seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  // CHAOS_ROUNDS raises it for a longer local run.
  const ROUNDS = Number(process.env.CHAOS_ROUNDS) || 16;

  interface Planned {
    path: string;
    fault: Fault;
    label?: string;
  }

  const status = (path: string, code: number, retryAfter?: number): Planned => ({
    path,
    fault: { kind: "status", status: code, ...(retryAfter === undefined ? {} : { retryAfter }) },
  });

  /** The faults a round may plan, per transport; `drop` makes the connector reconnect into them. */
  const menus: Record<"sse" | "bayeux", Array<() => { plan: Planned[]; drop: boolean }>> = {
    sse: [
      () => ({ plan: [status(STREAM, 429, 1 + int(3))], drop: true }),
      () => ({ plan: [status(STREAM, 503, 1 + int(3))], drop: true }),
      () => ({ plan: [status(STREAM, pick([500, 502, 504]))], drop: true }),
      () => ({ plan: [status(STREAM, 401)], drop: true }),
      () => ({ plan: [status(STREAM, 401), status(TOKEN, 429, 1 + int(3))], drop: true }),
      () => ({ plan: [status(STREAM, 401), status(TOKEN, 500)], drop: true }),
      () => ({ plan: [{ path: STREAM, fault: { kind: "drop" } }], drop: true }),
      () => ({
        plan: [{ path: STREAM, fault: { kind: "cut", afterEvents: int(3), midFrame: random() < 0.5 } }],
        drop: true,
      }),
      () => ({ plan: [{ path: STREAM, fault: { kind: "delay", ms: 500 + int(4000) } }], drop: true }),
    ],
    bayeux: [
      () => ({ plan: [status(CONNECT, 429, 1 + int(3))], drop: false }),
      () => ({ plan: [status(CONNECT, 503, 1 + int(3))], drop: false }),
      () => ({ plan: [status(CONNECT, pick([500, 502]))], drop: false }),
      () => ({ plan: [status(CONNECT, 401)], drop: false }),
      () => ({ plan: [status(CONNECT, 401), status(TOKEN, 503, 1 + int(3))], drop: false }),
      () => ({ plan: [{ path: CONNECT, fault: { kind: "drop" } }], drop: false }),
      () => ({ plan: [{ path: CONNECT, fault: { kind: "cut", afterEvents: 1 } }], drop: false }),
      () => ({ plan: [{ path: CONNECT, fault: { kind: "delay", ms: 500 + int(4000) } }], drop: false }),
      () => ({
        plan: [{ path: CONNECT, fault: { kind: "advice", reconnect: "retry", interval: 500 + int(3000) } }],
        drop: false,
      }),
      () => ({
        plan: [
          {
            path: CONNECT,
            fault: {
              kind: "advice",
              reconnect: "handshake",
              interval: int(2000),
              error: "402::Unknown client",
            },
            label: "session_expired",
          },
        ],
        drop: false,
      }),
      // A reset connect ends the session: the new session's handshake meets the 429.
      () => ({
        plan: [{ path: CONNECT, fault: { kind: "drop" } }, status(HANDSHAKE, 429, 1 + int(3))],
        drop: false,
      }),
    ],
  };

  for (const transport of ["sse", "bayeux"] as const) {
    test(`${transport}: ${ROUNDS} rounds, every event stored exactly once, every server wait honoured (seed ${seed})`, async () => {
      const t = await tenant(transport);
      try {
        // A first event gives the connector a position to resume from (before it, there is none).
        const emitted = [emit()];
        await waitStored(t, emitted);
        const assertions = fake.assertions.length;
        const unauthorised = fake.faults.injected["401"] ?? 0;
        const from = fake.faults.requests.length;
        for (let round = 0; round < ROUNDS; round++) {
          const { plan, drop } = pick(menus[transport])();
          for (const p of plan) fake.faults.next(p.path, 1, p.fault, p.label);
          emitted.push(emit());
          if (drop) dropConnections();
          for (let i = int(3); i > 0; i--) emitted.push(emit());
          await settle(t, emitted);
        }
        // A quiet round: a fault still armed (a held connect to be cut) goes off before it ends.
        emitted.push(emit());
        await settle(t, emitted);
        const checked = checkServerWaits(from);
        expect(checked).toBeGreaterThan(0);
        count(figures, "server waits checked on the clock", checked);
        // Each 401 cost exactly one accepted assertion; nothing else did (session expiries none).
        const exchanges = fake.assertions.length - assertions;
        const refusals = (fake.faults.injected["401"] ?? 0) - unauthorised;
        expect(exchanges).toBe(refusals);
        count(figures, "token exchanges", exchanges);
        count(figures, "401 answers", refusals);
        const s = await crmStatus(t);
        expect(s.state).toBe("connected");
        await expectExactlyOnce(t, emitted);
      } finally {
        await stop(t);
      }
    });
  }
});
