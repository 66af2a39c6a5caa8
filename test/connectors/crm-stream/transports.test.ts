import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { openBayeuxStream, REPLAY_ALL } from "../../../actors/connectors/crm-stream/bayeux-transport.ts";
import { CrmJwtBearerClient } from "../../../actors/connectors/crm-stream/crm-auth.ts";
import { openSseStream, parseSseEvent } from "../../../actors/connectors/crm-stream/sse-transport.ts";
import type {
  StreamClosed,
  StreamEvent,
  StreamHandle,
  StreamHandlers,
} from "../../../src/connectors/transport.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import { crmKeyPair, type FakeCrmPlatform, startFakeCrmPlatform } from "../../fakes/crm-platform.ts";
import { pollUntil } from "../../helpers/poll.ts";

const clock = new ManualClock();
const keys = crmKeyPair();
let fake: FakeCrmPlatform;
let token: string;
const open: StreamHandle[] = [];

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, clock, pollMs: 300 });
  const auth = new CrmJwtBearerClient({
    clientId: fake.clientId,
    username: fake.username,
    audience: fake.url,
    privateKeyPem: keys.privateKeyBase64,
    clock,
  });
  token = (await auth.token()).accessToken;
});
afterEach(() => {
  for (const h of open.splice(0)) h.close();
  fake.faults.clear();
});
afterAll(() => fake.stop());

interface Recorder extends StreamHandlers {
  events: StreamEvent[];
  closed: StreamClosed[];
  opens: number;
  warnings: string[];
}

function recorder(): Recorder {
  const r: Recorder = {
    events: [],
    closed: [],
    opens: 0,
    warnings: [],
    onOpen: () => r.opens++,
    onEvent: (e) => r.events.push(e),
    onWarning: (m) => r.warnings.push(m),
    onClosed: (c) => r.closed.push(c),
  };
  return r;
}

const until = <T>(probe: () => T, done: (v: T) => boolean) => pollUntil(probe, done, { timeoutMs: 3000 });

function publishOpportunity(stage: string) {
  return fake.publish("Opportunity", "UPDATE", ["006xx000001"], { StageName: stage });
}

describe("SSE transport", () => {
  function sse(r: Recorder, lastEventId?: string, accessToken = token) {
    const h = openSseStream(
      { url: fake.streamUrl, accessToken, lastEventId, defaultChannel: "/data/ChangeEvents" },
      r,
    );
    open.push(h);
    return h;
  }

  test("sends the bearer token, delivers events with their replay id, uuid and cursor", async () => {
    const r = recorder();
    sse(r);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    const published = publishOpportunity("Prospecting");
    const [event] = await until(
      () => r.events,
      (e) => e.length === 1,
    );
    expect(event).toEqual({
      channel: "/data/ChangeEvents",
      replayId: published.replayId,
      cursor: String(published.replayId),
      payload: published.payload,
      eventUuid: published.uuid,
    });
  });

  test("resumes after Last-Event-ID: earlier events are not sent again", async () => {
    const a = publishOpportunity("Qualification");
    const b = publishOpportunity("Proposal");
    const r = recorder();
    sse(r, String(a.replayId - 1));
    await until(
      () => r.events.length,
      (n) => n === 2,
    );
    expect(r.events.map((e) => e.replayId)).toEqual([a.replayId, b.replayId]);
    expect(fake.lastEventIds.at(-1)).toBe(String(a.replayId - 1));
  });

  test("a dropped connection is reported once, and the client does not reconnect by itself", async () => {
    const r = recorder();
    sse(r);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    const hits = fake.hits.stream;
    fake.dropConnections();
    await until(
      () => r.closed.length,
      (n) => n === 1,
    );
    expect(r.closed[0]!.status).toBeUndefined();
    // A witness stream that sees a later event shows time passed without a second report.
    const witness = recorder();
    sse(witness);
    await until(
      () => witness.opens,
      (n) => n === 1,
    );
    publishOpportunity("Witnessed");
    await until(
      () => witness.events.length,
      (n) => n === 1,
    );
    expect(fake.hits.stream).toBe(hits + 1);
    expect(r.closed).toHaveLength(1);
    expect(r.events).toHaveLength(0);
  });

  test("a 401 ends the stream with status 401", async () => {
    const r = recorder();
    sse(r, undefined, "not-a-token");
    const [closed] = await until(
      () => r.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "stream answered 401", status: 401 });
    expect(r.opens).toBe(0);
  });

  test("a peer that accepts and never answers is given up after the open timeout", async () => {
    const silent = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: () => new Promise<Response>(() => {}),
    });
    try {
      const r = recorder();
      open.push(
        openSseStream(
          {
            url: `http://127.0.0.1:${silent.port}/`,
            accessToken: token,
            defaultChannel: "/d",
            openTimeoutMs: 50,
          },
          r,
        ),
      );
      const [closed] = await until(
        () => r.closed,
        (c) => c.length === 1,
      );
      expect(closed).toEqual({ reason: "stream did not open in time", status: undefined });
    } finally {
      silent.stop(true);
    }
  });

  test("after close() nothing is reported", async () => {
    const r = recorder();
    const h = sse(r);
    const witness = recorder();
    sse(witness);
    await until(
      () => r.opens + witness.opens,
      (n) => n === 2,
    );
    h.close();
    publishOpportunity("Negotiation");
    await until(
      () => witness.events.length,
      (n) => n === 1,
    );
    fake.dropConnections();
    await until(
      () => witness.closed.length,
      (n) => n === 1,
    );
    expect(r.events).toHaveLength(0);
    expect(r.closed).toHaveLength(0);
  });

  test("a 429 ends the stream with the Retry-After the server sent", async () => {
    fake.faults.next("/stream", 1, { kind: "status", status: 429, retryAfter: 2 });
    const r = recorder();
    sse(r);
    const [closed] = await until(
      () => r.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "stream answered 429", status: 429, retryAfterMs: 2000 });
  });

  test("a 503 with an HTTP-date Retry-After gives the wait until that date on the clock", async () => {
    const at = Math.ceil((clock.now() + 5000) / 1000) * 1000;
    fake.faults.next("/stream", 1, { kind: "status", status: 503, retryAfter: new Date(at).toUTCString() });
    const r = recorder();
    open.push(openSseStream({ url: fake.streamUrl, accessToken: token, defaultChannel: "/d", clock }, r));
    const [closed] = await until(
      () => r.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "stream answered 503", status: 503, retryAfterMs: at - clock.now() });
  });

  test("a stream cut in the middle of an event delivers the whole events only, then ends once", async () => {
    const before = publishOpportunity("before");
    const kept = [publishOpportunity("one"), publishOpportunity("two")];
    publishOpportunity("half-sent");
    fake.faults.next("/stream", 1, { kind: "cut", afterEvents: 2, midFrame: true });
    const r = recorder();
    sse(r, String(before.replayId));
    await until(
      () => r.closed.length,
      (n) => n === 1,
    );
    expect(r.events.map((e) => e.replayId)).toEqual(kept.map((k) => k.replayId));
    expect(r.closed[0]!.status).toBeUndefined();
  });

  test("parseSseEvent reads Bayeux-shaped, bare and id-only events", () => {
    const payload = { ChangeEventHeader: { entityName: "Case" } };
    expect(
      parseSseEvent(
        JSON.stringify({ channel: "/data/CaseChangeEvent", data: { payload, event: { replayId: 9 } } }),
        "9",
        "/d",
      ),
    ).toEqual({
      channel: "/data/CaseChangeEvent",
      replayId: 9,
      cursor: "9",
      payload,
      eventUuid: undefined,
    });
    expect(parseSseEvent(JSON.stringify(payload), "17", "/d")).toMatchObject({
      channel: "/d",
      replayId: "17",
      payload,
    });
    expect(parseSseEvent("not json", "1", "/d")).toBeUndefined();
    expect(parseSseEvent(JSON.stringify(payload), "", "/d")).toBeUndefined();
  });
});

describe("Bayeux long-poll transport", () => {
  function bayeux(
    r: Recorder,
    replay: Record<string, number> = {},
    channels = ["/data/ChangeEvents"],
    accessToken = token,
  ) {
    const h = openBayeuxStream(
      { endpoint: `${fake.url}/cometd/62.0`, accessToken, channels, replay, clock },
      r,
    );
    open.push(h);
    return h;
  }

  const CONNECT = "/cometd/62.0/connect";
  const HANDSHAKE = "/cometd/62.0/handshake";

  /** Resolves once the transport waits on the clock for a timer due at `at`. */
  const waitingUntil = (at: number) =>
    until(
      () => clock.dueTimes(),
      (due) => due.includes(at),
    );

  test("advice.interval is waited on the clock before the next connect", async () => {
    fake.faults.next(CONNECT, 1, { kind: "advice", reconnect: "retry", interval: 2000 });
    const advisedAt = clock.now();
    const r = recorder();
    bayeux(r);
    // The first connect is held, then answered with the advice: the transport waits on the clock.
    await waitingUntil(advisedAt + 2000);
    const connects = fake.faults.seen(CONNECT).length;
    const event = publishOpportunity("published during the wait");
    clock.advance(1999);
    // Still waiting: the only timer due is the advised one.
    expect(clock.dueTimes()).toEqual([advisedAt + 2000]);
    expect(fake.faults.seen(CONNECT)).toHaveLength(connects);
    clock.advance(1);
    const next = await until(
      () => fake.faults.seen(CONNECT),
      (seen) => seen.length > connects,
    );
    expect(next[connects]!.at).toBe(advisedAt + 2000);
    await until(
      () => r.events.map((e) => e.replayId),
      (ids) => ids.includes(event.replayId),
    );
    expect(r.closed).toHaveLength(0);
  });

  test("an expired session (402::Unknown client, reconnect=handshake) handshakes again after the interval, with the same token", async () => {
    const tokens = fake.hits.token;
    fake.faults.next(CONNECT, 1, {
      kind: "advice",
      reconnect: "handshake",
      interval: 1500,
      error: "402::Unknown client",
    });
    const expiredAt = clock.now();
    const r = recorder();
    bayeux(r);
    await waitingUntil(expiredAt + 1500);
    const handshakes = fake.faults.seen(HANDSHAKE).length;
    clock.advance(1499);
    expect(fake.faults.seen(HANDSHAKE)).toHaveLength(handshakes);
    clock.advance(1);
    await until(
      () => r.opens,
      (n) => n === 2,
    );
    expect(fake.faults.seen(HANDSHAKE)).toHaveLength(handshakes + 1);
    expect(fake.faults.seen(HANDSHAKE).at(-1)!.at).toBe(expiredAt + 1500);
    const event = publishOpportunity("after the new session");
    await until(
      () => r.events.length,
      (n) => n === 1,
    );
    expect(r.events[0]!.replayId).toBe(event.replayId);
    expect(r.closed).toHaveLength(0);
    // A new session, not a new token: the access token is still valid.
    expect(fake.hits.token).toBe(tokens);
  });

  test("reconnect=none ends the stream for good", async () => {
    fake.faults.next(CONNECT, 1, { kind: "advice", reconnect: "none", error: "403::Go away" });
    const r = recorder();
    bayeux(r);
    const [closed] = await until(
      () => r.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "connect: server advised not to reconnect", final: true });
  });

  test("a 503 with Retry-After, a reset connection: each ends the stream once, with what the server said", async () => {
    fake.faults.next(HANDSHAKE, 1, { kind: "status", status: 503, retryAfter: 7 });
    const busy = recorder();
    bayeux(busy);
    const [closed] = await until(
      () => busy.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "handshake: answered 503", status: 503, retryAfterMs: 7000 });

    fake.faults.next(CONNECT, 1, { kind: "drop" });
    const dropped = recorder();
    bayeux(dropped);
    const [reset] = await until(
      () => dropped.closed,
      (c) => c.length === 1,
    );
    expect(reset!.reason).toStartWith("connect: connection lost mid-answer");
    expect(reset!.status).toBeUndefined();
  });

  test("handshake, subscribe (replay -1 without a stored id), then events through connect", async () => {
    const r = recorder();
    bayeux(r);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    expect(fake.subscriptions.at(-1)).toEqual({ channel: "/data/ChangeEvents", replayId: -1 });
    const a = publishOpportunity("Prospecting");
    const b = publishOpportunity("Closed Won");
    await until(
      () => r.events.length,
      (n) => n === 2,
    );
    expect(r.events.map((e) => [e.channel, e.replayId, e.eventUuid])).toEqual([
      ["/data/ChangeEvents", a.replayId, a.uuid],
      ["/data/ChangeEvents", b.replayId, b.uuid],
    ]);
    expect(r.events[1]!.payload).toEqual(b.payload);
  });

  test("subscribes with the stored replay id and receives only later events", async () => {
    const a = publishOpportunity("A");
    const b = publishOpportunity("B");
    const r = recorder();
    bayeux(r, { "/data/ChangeEvents": a.replayId });
    await until(
      () => r.events.length,
      (n) => n >= 1,
    );
    expect(fake.subscriptions.at(-1)).toEqual({ channel: "/data/ChangeEvents", replayId: a.replayId });
    expect(r.events.map((e) => e.replayId)).toEqual([b.replayId]);
  });

  test("one subscription per channel, each with its own replay id", async () => {
    const r = recorder();
    bayeux(r, { "/data/CaseChangeEvent": 1 }, ["/data/ChangeEvents", "/data/CaseChangeEvent"]);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    expect(fake.subscriptions.slice(-2)).toEqual([
      { channel: "/data/ChangeEvents", replayId: -1 },
      { channel: "/data/CaseChangeEvent", replayId: 1 },
    ]);
    const c = fake.publish(
      "Case",
      "CREATE",
      ["500xx1"],
      { Status: "New" },
      { channel: "/data/CaseChangeEvent" },
    );
    await until(() => r.events.some((e) => e.replayId === c.replayId), Boolean);
  });

  test("an unknown-client answer starts a new session from the events already delivered", async () => {
    const r = recorder();
    bayeux(r);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    const a = publishOpportunity("A");
    await until(
      () => r.events.length,
      (n) => n === 1,
    );
    fake.forgetSessions();
    await until(
      () => r.opens,
      (n) => n === 2,
    );
    expect(fake.subscriptions.at(-1)).toEqual({ channel: "/data/ChangeEvents", replayId: a.replayId });
    const b = publishOpportunity("B");
    await until(
      () => r.events.length,
      (n) => n === 2,
    );
    expect(r.events.map((e) => e.replayId)).toEqual([a.replayId, b.replayId]);
    expect(r.closed).toHaveLength(0);
  });

  test("a replay id older than the retention falls back to every retained event, with a warning", async () => {
    publishOpportunity("old");
    const keep = publishOpportunity("kept");
    fake.retainFrom = keep.replayId;
    try {
      const r = recorder();
      bayeux(r, { "/data/ChangeEvents": 0 });
      await until(
        () => r.events.length,
        (n) => n >= 1,
      );
      expect(fake.subscriptions.slice(-2)).toEqual([
        { channel: "/data/ChangeEvents", replayId: 0 },
        { channel: "/data/ChangeEvents", replayId: REPLAY_ALL },
      ]);
      expect(r.events[0]!.replayId).toBe(keep.replayId);
      expect(r.warnings[0]).toContain("no longer retained");
    } finally {
      fake.retainFrom = 1;
    }
  });

  test("a 401 ends the stream with status 401; a dropped poll ends it with 503", async () => {
    const denied = recorder();
    bayeux(denied, {}, undefined, "not-a-token");
    const [closed] = await until(
      () => denied.closed,
      (c) => c.length === 1,
    );
    expect(closed).toEqual({ reason: "handshake: 401", status: 401 });

    const r = recorder();
    bayeux(r);
    await until(
      () => r.opens,
      (n) => n === 1,
    );
    await until(
      () => fake.heldPolls(),
      (n) => n === 1,
    );
    fake.dropConnections();
    const [dropped] = await until(
      () => r.closed,
      (c) => c.length === 1,
    );
    expect(dropped).toEqual({ reason: "connect: answered 503", status: 503 });
  });

  test("after close() nothing is reported", async () => {
    const r = recorder();
    const h = bayeux(r);
    const witness = recorder();
    bayeux(witness);
    await until(
      () => r.opens + witness.opens,
      (n) => n === 2,
    );
    h.close();
    publishOpportunity("late");
    await until(
      () => witness.events.length,
      (n) => n === 1,
    );
    expect(r.events).toHaveLength(0);
    expect(r.closed).toHaveLength(0);
  });
});
