import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import type { CrmStatus } from "../../../src/protocols/connector-protocol.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";
import {
  crmConnectorSecrets,
  crmKeyPair,
  type FakeCrmPlatform,
  type PublishedEvent,
  startFakeCrmPlatform,
} from "../../fakes/crm-platform.ts";
import { type Harness, startHarness } from "../../helpers/harness.ts";
import { pollUntil } from "../../helpers/poll.ts";
import { setSecrets } from "../../helpers/webhooks.ts";

const clock = new ManualClock();
const keys = crmKeyPair();
/** Longest first reconnect delay: base 1 s with jitter. */
const FIRST_RETRY_MS = 1000;
let fake: FakeCrmPlatform;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeCrmPlatform({ publicKeyPem: keys.publicKeyPem, now: () => clock.now(), pollMs: 300 });
  h = await startHarness({ clock });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

const until = <T>(probe: () => T | Promise<T>, done: (v: T) => boolean) =>
  pollUntil(probe, done, { timeoutMs: 4000 });

async function tenant(transport: "sse" | "bayeux", extra: Record<string, string> = {}): Promise<string> {
  const { tenant_id: t } = await h.createTenant();
  setSecrets(h, t, crmConnectorSecrets(fake, keys, transport));
  for (const [k, v] of Object.entries(extra)) h.env[`${k}_${t}`] = v;
  return t;
}

/** What these tests read of an entry. */
interface EntryView {
  category: string;
  stage?: string;
  amount?: number;
  source: { system: string; event_id: string; event_type: string };
}

async function crmStatus(t: string): Promise<CrmStatus | undefined> {
  const { status, body } = await h.json("GET", `/tenants/${t}/healthz`, { token: h.adminToken });
  expect(status).toBe(200);
  return body.connectors.crm;
}

const waitState = (t: string, state: string) =>
  until(
    () => crmStatus(t),
    (s) => s?.state === state,
  );

async function entries(t: string): Promise<EntryView[]> {
  const all: EntryView[] = [];
  for (const plural of ["facts", "decisions", "relationships", "exceptions"]) {
    const { status, body } = await h.json("GET", `/memory/${plural}?limit=200&tenant_id=${t}`, {
      token: await h.mint(t, ["tenant_admin"]),
    });
    expect(status).toBe(200);
    all.push(...body.items);
  }
  return all;
}

function eventIds(list: { source: { event_id: string } }[]): string[] {
  return list.map((e) => e.source.event_id).sort();
}

const waitEntries = (t: string, n: number) =>
  until(
    () => entries(t),
    (list) => list.length >= n,
  );

let seq = 0;
function opportunity(stage = "Prospecting"): PublishedEvent {
  seq++;
  return fake.publish("Opportunity", "CREATE", [`006xx00000${seq}`], {
    Name: `Deal ${seq}`,
    StageName: stage,
    Amount: 1000 * seq,
  });
}

/**
 * Before each test of a describe whose assertions read the fake's platform-wide records (hits,
 * assertions, Last-Event-IDs, subscriptions): a restart stops the connectors of every earlier test,
 * the fake drops what the stopped runtime left open (streams, held polls) and plans no refusal, so
 * only the test's own tenant talks to the fake.
 */
async function onlyThisTestsConnector(): Promise<void> {
  await h.restart();
  fake.dropConnections();
  fake.rejectTokenRequests = 0;
  fake.rejectStreamRequests = 0;
}

describe("CRM stream over SSE", () => {
  beforeEach(onlyThisTestsConnector);

  /** A tenant whose SSE stream is connected. */
  async function connectedTenant(): Promise<string> {
    const t = await tenant("sse");
    const started = await h.runtime.startConnectorsFor(t);
    expect(started.crm?.transport).toBe("sse");
    await waitState(t, "connected");
    return t;
  }

  /** Three events (the last without its own id) stored, and the last one's replay id committed. */
  async function withThreeEvents(t: string): Promise<PublishedEvent[]> {
    const published = [
      opportunity(),
      fake.publish("Account", "CREATE", ["001xx01"], { Name: "Acme Corp", Industry: "Retail" }),
      fake.publish("Task", "CREATE", ["00Txx01"], { Subject: "Call back" }, { withoutUuid: true }),
    ];
    await waitEntries(t, 3);
    await until(
      () => crmStatus(t),
      (s) => s?.replay?.["/data/ChangeEvents"] === published[2]!.replayId,
    );
    return published;
  }

  test("events become entries, with the replay id committed alongside", async () => {
    const t = await tenant("sse");
    const started = await h.runtime.startConnectorsFor(t);
    expect(started.crm?.transport).toBe("sse");
    expect(started.mail).toBeUndefined();
    await waitState(t, "connected");
    const published: PublishedEvent[] = [];
    published.push(opportunity());
    published.push(fake.publish("Account", "CREATE", ["001xx01"], { Name: "Acme Corp", Industry: "Retail" }));
    published.push(
      fake.publish("Task", "CREATE", ["00Txx01"], { Subject: "Call back" }, { withoutUuid: true }),
    );
    const list = await waitEntries(t, 3);
    expect(list.map((e) => e.category).sort()).toEqual(["decision", "fact", "relationship"]);
    const deal = list.find((e) => e.category === "decision")!;
    expect(deal.source).toEqual({
      system: "crm",
      event_id: published[0]!.uuid,
      event_type: "Opportunity.CREATE",
    });
    expect(deal.stage).toBe("Prospecting");
    // Without its own id an event is known by channel and replay id.
    const task = list.find((e) => e.category === "fact")!;
    expect(task.source.event_id).toBe(`/data/ChangeEvents:${published[2]!.replayId}`);
    const status = await until(
      () => crmStatus(t),
      (s) => s?.events === 3,
    );
    expect(status).toMatchObject({ state: "connected", transport: "sse", last_error: null });
    expect(status!.replay).toEqual({ "/data/ChangeEvents": published[2]!.replayId });
  });

  test("after a dropped connection it backs off, then resumes from the stored id: nothing lost or doubled", async () => {
    const t = await connectedTenant();
    const published = await withThreeEvents(t);
    fake.dropConnections();
    const backoff = await waitState(t, "backoff");
    expect(Date.parse(backoff!.next_retry_at!) - clock.now()).toBeLessThanOrEqual(FIRST_RETRY_MS);
    // Published while disconnected: the resumed stream must bring it.
    published.push(opportunity("Qualification"));
    const hits = fake.hits.stream;
    clock.advance(FIRST_RETRY_MS);
    const list = await waitEntries(t, 4);
    expect(fake.hits.stream).toBe(hits + 1);
    expect(fake.lastEventIds.at(-1)).toBe(String(published[2]!.replayId));
    expect(list).toHaveLength(4);
    expect(eventIds(list)).toEqual(
      eventIds(
        published.map((p) => ({ source: { event_id: p.uuid || `/data/ChangeEvents:${p.replayId}` } })),
      ),
    );
    expect((await crmStatus(t))!.reconnects).toBe(1);
  });

  test("after a restart it resumes from the stored replay id", async () => {
    const t = await connectedTenant();
    const published = await withThreeEvents(t);
    await h.restart();
    // Stopping the runtime closed the stream.
    await until(
      () => fake.liveStreams(),
      (n) => n === 0,
    );
    published.push(opportunity("Proposal"));
    await h.runtime.startConnectorsFor(t);
    const list = await waitEntries(t, 4);
    expect(fake.lastEventIds.at(-1)).toBe(String(published[2]!.replayId));
    expect(list).toHaveLength(4);
    expect(new Set(eventIds(list)).size).toBe(4);
  });

  test("a 401 makes it authenticate again with a new assertion", async () => {
    const t = await connectedTenant();
    await withThreeEvents(t);
    const assertions = fake.assertions.length;
    fake.revokeTokens();
    fake.dropConnections();
    await waitState(t, "backoff");
    clock.advance(5 * FIRST_RETRY_MS);
    // The reconnect with the revoked token gets 401, and at once a fresh assertion is exchanged.
    await until(
      () => fake.assertions.length,
      (n) => n === assertions + 1,
    );
    await waitState(t, "connected");
    opportunity("Negotiation");
    const list = await waitEntries(t, 4);
    expect(list).toHaveLength(4);
    const status = await crmStatus(t);
    expect(status!.authentications).toBeGreaterThanOrEqual(2);
  });

  test("an event that maps to nothing is dead-lettered and the stream still moves past it", async () => {
    const t = await connectedTenant();
    const odd = fake.publish("", "", [], {}, { rawPayload: { Message__c: "not a change event" } });
    await until(
      () => crmStatus(t),
      (s) => s?.replay?.["/data/ChangeEvents"] === odd.replayId,
    );
    const { body } = await h.json("GET", `/admin/webhooks/dead-letters/${t}`, { token: h.adminToken });
    const letter = (body.dead_letters as DeadLetter[]).find((d) => d.event_id === odd.uuid);
    expect(letter).toMatchObject({
      source: "crm",
      status: "dead",
      last_error: "unmapped_event: not a change event",
    });
  });
});

describe("CRM stream over SSE: a silent stream", () => {
  // Other tests' connected tenants would re-arm watchdogs at the same instants on the shared clock,
  // and the heartbeat test's wait could then be met by theirs before its own stream read the beat.
  beforeEach(onlyThisTestsConnector);

  /** The configured silence interval (MEMORY_RUNTIME_STREAM_SILENCE_SECONDS, default 120). */
  const SILENCE_MS = 120_000;

  test("a stream that goes quiet is detected on the clock and resumed from the stored replay id, nothing lost or doubled", async () => {
    const t = await tenant("sse");
    await h.runtime.startConnectorsFor(t);
    await waitState(t, "connected");
    fake.publish("Account", "CREATE", ["001qq01"], { Name: "Before The Stall" });
    await waitEntries(t, 1);
    const before = (await crmStatus(t))!;
    // The connection stays open but nothing reaches it: events published meanwhile are missed.
    fake.stallStreams();
    fake.publish("Account", "CREATE", ["001qq02"], { Name: "Missed One" });
    fake.publish("Account", "CREATE", ["001qq03"], { Name: "Missed Two" });
    clock.advance(SILENCE_MS + 1);
    const backoff = await waitState(t, "backoff");
    expect(backoff!.last_error).toContain("stream silent for 120 s");
    clock.advance(5 * FIRST_RETRY_MS);
    await waitState(t, "connected");
    const list = await waitEntries(t, 3);
    expect(list).toHaveLength(3);
    expect(new Set(eventIds(list)).size).toBe(3);
    const after = (await crmStatus(t))!;
    expect(after.reconnects).toBe(before.reconnects + 1);
    expect(fake.lastEventIds.at(-1)).toBe(String(before.replay!["/data/ChangeEvents"]));
  });

  test("heartbeat comments alone keep a quiet stream open", async () => {
    const t = await tenant("sse");
    await h.runtime.startConnectorsFor(t);
    await waitState(t, "connected");
    const reconnects = (await crmStatus(t))!.reconnects;
    for (let beat = 0; beat < 3; beat++) {
      clock.advance(SILENCE_MS - 10_000);
      fake.heartbeat();
      // The comment has reached the client once the watchdog is re-armed a full interval from now.
      await until(
        () => clock.dueTimes(),
        (due) => due.includes(clock.now() + SILENCE_MS),
      );
    }
    const status = (await crmStatus(t))!;
    expect(status.state).toBe("connected");
    expect(status.reconnects).toBe(reconnects);
  });
});

describe("CRM stream over Bayeux long-poll", () => {
  beforeEach(onlyThisTestsConnector);

  /** A tenant connected over Bayeux with two events stored and the last one's replay id committed. */
  async function withTwoEvents(): Promise<{ t: string; published: PublishedEvent[] }> {
    const t = await tenant("bayeux");
    await h.runtime.startConnectorsFor(t);
    await waitState(t, "connected");
    const published = [
      opportunity(),
      fake.publish("Case", "CREATE", ["500xx01"], { CaseNumber: "00001", Subject: "Broken", Status: "New" }),
    ];
    await waitEntries(t, 2);
    await until(
      () => crmStatus(t),
      (s) => s?.replay?.["/data/ChangeEvents"] === published[1]!.replayId,
    );
    return { t, published };
  }

  test("handshake, subscribe and connect: events become entries", async () => {
    const t = await tenant("bayeux");
    const started = await h.runtime.startConnectorsFor(t);
    expect(started.crm).toMatchObject({ transport: "bayeux", channels: ["/data/ChangeEvents"] });
    await waitState(t, "connected");
    expect(fake.subscriptions.at(-1)).toEqual({ channel: "/data/ChangeEvents", replayId: -1 });
    opportunity();
    fake.publish("Case", "CREATE", ["500xx01"], {
      CaseNumber: "00001",
      Subject: "Broken",
      Status: "New",
      Priority: "High",
    });
    const list = await waitEntries(t, 2);
    expect(list.map((e) => e.category).sort()).toEqual(["decision", "exception"]);
  });

  test("a dropped poll backs off, then subscribes again from the stored replay id", async () => {
    const { t, published } = await withTwoEvents();
    await until(
      () => fake.heldPolls(),
      (n) => n >= 1,
    );
    fake.dropConnections();
    await waitState(t, "backoff");
    published.push(opportunity("Closed Won"));
    clock.advance(FIRST_RETRY_MS);
    const list = await waitEntries(t, 3);
    expect(fake.subscriptions.at(-1)).toEqual({
      channel: "/data/ChangeEvents",
      replayId: published[1]!.replayId,
    });
    expect(list).toHaveLength(3);
    const won = list.find((e) => e.stage === "closed_won")!;
    expect(won.amount).toBeGreaterThan(0);
  });

  test("after a restart it subscribes from the stored replay id: nothing lost or doubled", async () => {
    const { t, published } = await withTwoEvents();
    await h.restart();
    published.push(
      fake.publish("Contact", "CREATE", ["003xx01"], {
        Name: { FirstName: "Ada", LastName: "Lovelace" },
        Email: "ada@example.com",
      }),
    );
    await h.runtime.startConnectorsFor(t);
    const list = await waitEntries(t, 3);
    expect(fake.subscriptions.at(-1)).toEqual({
      channel: "/data/ChangeEvents",
      replayId: published[1]!.replayId,
    });
    expect(list).toHaveLength(3);
    expect(eventIds(list)).toEqual(published.map((p) => p.uuid).sort());
  });

  test("a 401 on the long-poll makes it authenticate again", async () => {
    const { t } = await withTwoEvents();
    const assertions = fake.assertions.length;
    fake.rejectStreamRequests = 1;
    fake.forgetSessions();
    await until(
      () => fake.assertions.length,
      (n) => n === assertions + 1,
    );
    await waitState(t, "connected");
    opportunity("Closed Lost");
    expect(await waitEntries(t, 3)).toHaveLength(3);
  });
});

describe("CRM stream configuration", () => {
  test("an instance URL that is not https (nor loopback) is refused, and health says why", async () => {
    const t = await tenant("bayeux", { CRM_INSTANCE_URL: "http://acme.my.example.com" });
    const { crm } = await h.runtime.startConnectorsFor(t);
    expect(crm).toMatchObject({ state: "refused" });
    expect(crm!.last_error).toContain("CRM_INSTANCE_URL must use https");
    expect((await crmStatus(t))!.state).toBe("refused");
  });

  test("a private key that is not a base64 PEM is refused", async () => {
    const t = await tenant("sse", { CRM_PRIVATE_KEY: "bm90IGEga2V5" });
    const { crm } = await h.runtime.startConnectorsFor(t);
    expect(crm).toMatchObject({
      state: "refused",
      last_error: "CRM_PRIVATE_KEY is not a base64-encoded PEM private key",
    });
  });

  test("a tenant without the stream secrets starts no connector", async () => {
    const { tenant_id } = await h.createTenant();
    expect(await h.runtime.startConnectorsFor(tenant_id)).toEqual({});
  });

  test("a refused token backs off and retries through the clock", async () => {
    const t = await tenant("sse");
    fake.rejectTokenRequests = 2;
    await h.runtime.startConnectorsFor(t);
    // First 401: a fresh assertion at once; the second 401 backs off.
    const status = await waitState(t, "backoff");
    expect(status!.last_error).toContain("authentication failed: token endpoint answered 401");
    clock.advance(5 * FIRST_RETRY_MS);
    await waitState(t, "connected");
  });
});
