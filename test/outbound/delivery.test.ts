/**
 * Outbound events, the delivery side: a local receiver (Bun.serve on 127.0.0.1) verifies every
 * request with the `standardwebhooks` library. Time is a ManualClock started at the real time (the
 * library bounds a signature's age by the wall clock); retries fire when the test advances it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { createRuntime } from "../../src/lib.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { type Received, Receiver } from "./receiver.ts";

const MAX_FAILURES = 3;
/** The longest first retry delay: base 2 s; each further one doubles (before jitter). */
const FIRST_RETRY_MS = 2_000;

const clock = new ManualClock(Date.now());
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock, env: { MEMORY_RUNTIME_OUTBOUND_MAX_FAILURES: String(MAX_FAILURES) } });
});
afterAll(async () => {
  await h.close();
});

interface Subscribed {
  tenant: string;
  token: string;
  id: string;
  secret: string;
  receiver: Receiver;
}

async function subscribe(
  events: string[],
  receiver?: Receiver,
  tenant?: { tenant_id: string; token: string },
) {
  const t = tenant ?? (await h.createTenant());
  const r = receiver ?? (await Receiver.start());
  const { status, body } = await h.json("POST", `/admin/subscriptions/${t.tenant_id}`, {
    token: h.adminToken,
    body: { url: r.url(), events },
  });
  expect(status).toBe(201);
  return { tenant: t.tenant_id, token: t.token, id: body.id, secret: body.secret, receiver: r } as Subscribed;
}

/** Verifies a request as a subscriber would, with the standardwebhooks library. */
function verified(s: Subscribed, req: Received) {
  return new Webhook(s.secret).verify(req.body, req.headers) as {
    type: string;
    timestamp: string;
    // biome-ignore lint/suspicious/noExplicitAny: event data read field by field
    data: any;
  };
}

async function write(s: Subscribed, category: string, body: Record<string, unknown>) {
  const res = await h.json("POST", `/memory/${category}`, { token: s.token, body });
  expect(res.status).toBe(201);
  return res.body;
}

async function deliveries(s: Subscribed) {
  const res = await h.json("GET", `/admin/subscriptions/${s.tenant}/${s.id}/deliveries?limit=200`, {
    token: h.adminToken,
  });
  expect(res.status).toBe(200);
  return res.body.deliveries as Array<Record<string, unknown>>;
}

async function subscription(s: Subscribed) {
  const res = await h.json("GET", `/admin/subscriptions/${s.tenant}`, { token: h.adminToken });
  return res.body.subscriptions.find((x: { id: string }) => x.id === s.id);
}

/** Waits until the delivery log holds `count` records (the worker records after each answer). */
const logged = (s: Subscribed, count: number) =>
  pollUntil(
    () => deliveries(s),
    (d) => d.length >= count,
    { timeoutMs: 5000 },
  );

describe("delivery", () => {
  test("a created entry is POSTed, signed per Standard Webhooks, with the entry as GET answers it", async () => {
    const s = await subscribe(["entry.created"]);
    const entry = await write(s, "facts", { content: "Acme renews in March", tags: ["acme"] });
    const [req] = await s.receiver.waitFor(1);
    const event = verified(s, req!);
    expect(req!.headers["content-type"]).toStartWith("application/json");
    expect(req!.headers["webhook-id"]).toMatch(new RegExp(`^msg_${s.tenant}_\\d+$`));
    expect(Number(req!.headers["webhook-timestamp"])).toBe(Math.floor(clock.now() / 1000));
    expect(req!.headers["webhook-signature"]).toStartWith("v1,");
    const get = await h.json("GET", `/memory/facts/${entry.id}`, { token: s.token });
    expect(event).toEqual({
      type: "entry.created",
      timestamp: entry.recorded_at,
      data: {
        change: {
          seq: expect.any(Number),
          at: entry.recorded_at,
          type: "entry.created",
          id: entry.id,
          category: "fact",
          by: expect.any(String),
        },
        entry: get.body,
      },
    });
    expect(req!.headers["webhook-id"]).toBe(`msg_${s.tenant}_${event.data.change.seq}`);
    const [record] = await logged(s, 1);
    expect(record).toEqual({
      at: expect.any(String),
      webhook_id: req!.headers["webhook-id"],
      change_seq: event.data.change.seq,
      type: "entry.created",
      attempt: 1,
      status: 200,
      outcome: "delivered",
      duration_ms: expect.any(Number),
    });
    const sub = await subscription(s);
    expect(sub).toMatchObject({ position: event.data.change.seq, consecutive_failures: 0, status: "active" });
    expect(sub.last_delivery_at).not.toBeNull();
    await s.receiver.stop();
  });

  test("only the subscribed types are sent: a decision's resolution, not the entries' creation", async () => {
    const s = await subscribe(["decision.resolved"]);
    const decision = await write(s, "decisions", { content: "Pick Postgres" });
    await write(s, "facts", { content: "unrelated" });
    const outcome = await write(s, "outcomes", {
      content: "It worked",
      decision_id: decision.id,
      result: "success",
    });
    const [req] = await s.receiver.waitFor(1);
    const event = verified(s, req!);
    expect(event.type).toBe("decision.resolved");
    expect(event.data.change).toMatchObject({ id: decision.id, related: outcome.id, category: "decision" });
    expect(event.data.entry).toMatchObject({ id: decision.id, status: "resolved" });
    // A marker event after them: had anything else been sent, it would have arrived first.
    await write(s, "outcomes", {
      content: "Second",
      decision_id: (await write(s, "decisions", { content: "Pick Redis" })).id,
      result: "neutral",
    });
    const all = await s.receiver.waitFor(2);
    expect(all.map((r) => verified(s, r).type)).toEqual(["decision.resolved", "decision.resolved"]);
    await s.receiver.stop();
  });

  test("in order, one at a time: a failed event holds back the ones after it", async () => {
    const s = await subscribe(["entry.created"]);
    // The second request (the second event's first attempt) fails.
    s.receiver.respond = (i) => (i === 1 ? 503 : 200);
    const written = [];
    for (let i = 0; i < 5; i++) written.push(await write(s, "facts", { content: `ordered ${i}` }));
    await s.receiver.waitFor(2);
    await logged(s, 2);
    // Head-of-line: nothing after the failed event was sent while it waits for its retry.
    expect(s.receiver.received).toHaveLength(2);
    clock.advance(FIRST_RETRY_MS);
    const all = await s.receiver.waitFor(6);
    const ids = all.map((r) => verified(s, r).data.entry.id);
    expect(ids).toEqual([
      written[0].id,
      written[1].id,
      written[1].id,
      written[2].id,
      written[3].id,
      written[4].id,
    ]);
    const seqs = all.map((r) => verified(s, r).data.change.seq);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThanOrEqual(seqs[i - 1]!);
    await s.receiver.stop();
  });

  test("a subscriber answering 500 then 200 gets the event once more, same webhook-id, then nothing again", async () => {
    const s = await subscribe(["entry.created"]);
    s.receiver.respond = (i) => (i === 0 ? 500 : 200);
    await write(s, "facts", { content: "retry me" });
    const [first] = await s.receiver.waitFor(1);
    const failed = await logged(s, 1);
    expect(failed[0]).toMatchObject({ attempt: 1, status: 500, outcome: "failed", error: "HTTP 500" });
    expect(await subscription(s)).toMatchObject({ consecutive_failures: 1, last_error: "HTTP 500" });
    clock.advance(FIRST_RETRY_MS);
    const [, second] = await s.receiver.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(verified(s, second!).data.entry.content).toBe("retry me");
    const log = await logged(s, 2);
    expect(log[0]).toMatchObject({ attempt: 2, status: 200, outcome: "delivered" });
    expect(await subscription(s)).toMatchObject({ consecutive_failures: 0, last_error: null });
    // Nothing is pending: a later event is the next request, and no timer is left behind to resend.
    clock.advance(30_000);
    await write(s, "facts", { content: "next" });
    const all = await s.receiver.waitFor(3);
    expect(verified(s, all[2]!).data.entry.content).toBe("next");
    expect(all).toHaveLength(3);
    await s.receiver.stop();
  });

  test(`${MAX_FAILURES} consecutive failures disable the subscription (delivery log, audit); enable resumes`, async () => {
    const s = await subscribe(["entry.created"]);
    s.receiver.respond = () => 500;
    await write(s, "facts", { content: "never accepted" });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    clock.advance(FIRST_RETRY_MS);
    await s.receiver.waitFor(2);
    await logged(s, 2);
    clock.advance(FIRST_RETRY_MS * 2);
    await s.receiver.waitFor(3);
    const log = await logged(s, 4);
    expect(log.map((d) => [d.attempt, d.outcome])).toEqual([
      [3, "disabled"],
      [3, "failed"],
      [2, "failed"],
      [1, "failed"],
    ]);
    expect(log[0]!.error).toBe(`disabled after ${MAX_FAILURES} consecutive failures`);
    const sub = await subscription(s);
    expect(sub).toMatchObject({
      status: "disabled",
      consecutive_failures: MAX_FAILURES,
      last_error: "HTTP 500",
    });
    expect(sub.disabled_at).not.toBeNull();
    const audit = await h.json("GET", "/admin/audit/events?limit=50", { token: h.adminToken });
    expect(audit.body.events).toContainEqual(
      expect.objectContaining({ action: "subscription.disabled", tenant_id: s.tenant, target: s.id }),
    );
    // Disabled: nothing more is sent, whatever happens and however long we wait.
    await write(s, "facts", { content: "while disabled" });
    clock.advance(30_000);
    expect(s.receiver.received).toHaveLength(3);
    // Enabled again: the held event and the one written meanwhile arrive, in order.
    s.receiver.respond = () => 200;
    const enabled = await h.json("POST", `/admin/subscriptions/${s.tenant}/${s.id}/enable`, {
      token: h.adminToken,
    });
    expect(enabled.body).toMatchObject({ status: "active", consecutive_failures: 0, disabled_at: null });
    const all = await s.receiver.waitFor(5);
    expect(all.slice(3).map((r) => verified(s, r).data.entry.content)).toEqual([
      "never accepted",
      "while disabled",
    ]);
    expect(all[3]!.headers["webhook-id"]).toBe(all[0]!.headers["webhook-id"]);
    await pollUntil(
      () => subscription(s),
      (x) => x.consecutive_failures === 0 && x.last_error === null,
      { timeoutMs: 5000 },
    );
    await s.receiver.stop();
  });

  test("a dead-lettered event is announced without its payload", async () => {
    const s = await subscribe(["deadletter.created"]);
    const reaction = {
      type: "reaction_added",
      user: "U3",
      reaction: "white_check_mark",
      item: { channel: "C0SECRETCHAN", ts: "1700000000.000100" },
    };
    const result = await h.runtime.bridge.deliver(s.tenant, reaction);
    expect(result.dead_lettered).toHaveLength(1);
    const [req] = await s.receiver.waitFor(1);
    const event = verified(s, req!);
    expect(event.type).toBe("deadletter.created");
    expect(event.data).toEqual({
      change: expect.objectContaining({
        type: "deadletter.created",
        id: result.dead_lettered[0],
        source: "messaging",
      }),
      dead_letter: {
        event_id: result.dead_lettered[0],
        source: "messaging",
        event_type: "reaction_added",
        received_at: expect.any(String),
        last_error: expect.stringMatching(/^unknown_message/),
      },
    });
    expect(req!.body).not.toContain("payload");
    expect(req!.body).not.toContain("U3");
    await s.receiver.stop();
  });

  test("an entry erased before its retry is sent as {id, erased_at} only", async () => {
    const s = await subscribe(["entry.created"]);
    s.receiver.respond = (i) => (i === 0 ? 500 : 200);
    const entry = await write(s, "facts", { content: "Jane Roe's phone is 555-0100" });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    const erased = await h.json("POST", `/admin/tenants/${s.tenant}/erase`, {
      token: h.adminToken,
      body: { ids: [entry.id] },
    });
    expect(erased.status).toBe(200);
    clock.advance(FIRST_RETRY_MS);
    const [, second] = await s.receiver.waitFor(2);
    const event = verified(s, second!);
    expect(event.data.entry).toEqual({ id: entry.id, erased_at: erased.body.erased_at });
    expect(second!.body).not.toContain("555-0100");
    await s.receiver.stop();
  });

  test("deleting a subscription stops its deliveries", async () => {
    const s = await subscribe(["entry.created"]);
    s.receiver.respond = () => 500;
    await write(s, "facts", { content: "undeliverable" });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    const del = await h.json("DELETE", `/admin/subscriptions/${s.tenant}/${s.id}`, { token: h.adminToken });
    expect(del.status).toBe(200);
    expect(h.runtime.services.outbound.isRunning(s.tenant)).toBe(false);
    clock.advance(30_000);
    await write(s, "facts", { content: "after delete" });
    expect(s.receiver.received).toHaveLength(1);
    await s.receiver.stop();
  });

  test("the secret appears in no answer but the creation, no delivery log, dead letter or audit event", async () => {
    const s = await subscribe(["entry.created", "deadletter.created"]);
    s.receiver.respond = (i) => (i === 0 ? 500 : 200);
    await write(s, "facts", { content: "secret check" });
    await h.runtime.bridge.deliver(s.tenant, {
      type: "reaction_added",
      user: "U4",
      reaction: "white_check_mark",
      item: { channel: "C1", ts: "1700000001.000100" },
    });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    clock.advance(FIRST_RETRY_MS);
    await s.receiver.waitFor(3);
    const key = s.secret.slice("whsec_".length);
    const answers = [
      await h.json("GET", `/admin/subscriptions/${s.tenant}`, { token: h.adminToken }),
      await h.json("GET", `/admin/subscriptions/${s.tenant}/${s.id}/deliveries`, { token: h.adminToken }),
      await h.json("GET", `/admin/webhooks/dead-letters/${s.tenant}`, { token: h.adminToken }),
      await h.json("GET", "/admin/audit/events?limit=200", { token: h.adminToken }),
      await h.json("GET", `/tenants/${s.tenant}/healthz`, { token: h.adminToken }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body)).not.toContain(key);
    }
    for (const r of s.receiver.received) expect(JSON.stringify(r.json)).not.toContain(key);
    await s.receiver.stop();
  });
});

describe("across a restart", () => {
  test("an event committed while the receiver was down is delivered after the restart, and nothing twice", async () => {
    const s = await subscribe(["entry.created"]);
    await write(s, "facts", { content: "delivered before" });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    // The receiver goes down; an event is committed and its first attempt fails.
    await s.receiver.stop();
    const entry = await write(s, "facts", { content: "committed while down" });
    const log = await logged(s, 2);
    expect(log[0]).toMatchObject({
      outcome: "failed",
      status: null,
      error: expect.stringMatching(/^request failed/),
    });
    await h.restart();
    s.receiver.listen();
    h.runtime.startConnectors();
    const all = await s.receiver.waitFor(2);
    expect(verified(s, all[1]!).data.entry.id).toBe(entry.id);
    // The first event, acknowledged before the restart, was not sent again.
    await pollUntil(
      () => subscription(s),
      (x) => x.consecutive_failures === 0 && x.last_delivery_at !== null,
      { timeoutMs: 5000 },
    );
    await write(s, "facts", { content: "after restart" });
    const three = await s.receiver.waitFor(3);
    expect(three.map((r) => verified(s, r).data.entry.content)).toEqual([
      "delivered before",
      "committed while down",
      "after restart",
    ]);
    await s.receiver.stop();
  });

  test("a suspended tenant's deliveries stop, and resume once it is resumed", async () => {
    const s = await subscribe(["entry.created"]);
    s.receiver.respond = (i) => (i === 0 ? 500 : 200);
    await write(s, "facts", { content: "held while suspended" });
    await s.receiver.waitFor(1);
    await logged(s, 1);
    const suspend = await h.json("POST", `/admin/tenants/${s.tenant}/suspend`, { token: h.adminToken });
    expect(suspend.status).toBe(200);
    expect(h.runtime.services.outbound.isRunning(s.tenant)).toBe(false);
    // The retry falls due while suspended: nothing is sent.
    clock.advance(FIRST_RETRY_MS * 2);
    expect(s.receiver.received).toHaveLength(1);
    const resume = await h.json("POST", `/admin/tenants/${s.tenant}/resume`, { token: h.adminToken });
    expect(resume.status).toBe(200);
    const [, req] = await s.receiver.waitFor(2);
    expect(verified(s, req!).data.entry.content).toBe("held while suspended");
    await s.receiver.stop();
  });
});

describe("log lines", () => {
  test("a disabled subscription is logged without its secret, URL or any body", async () => {
    const lines: string[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), "mrt-outbound-log-"));
    const logClock = new ManualClock(Date.now());
    const runtime = createRuntime({
      env: {
        MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
        MEMORY_RUNTIME_DATA_DIR: dataDir,
        MEMORY_RUNTIME_EMBEDDER: "hash",
        MEMORY_RUNTIME_LOG: "off",
        MEMORY_RUNTIME_OUTBOUND_MAX_FAILURES: "2",
      },
      clock: logClock,
      log: (line) => lines.push(line),
    });
    const receiver = await Receiver.start();
    receiver.respond = () => 500;
    try {
      const call = async (method: string, path: string, token: string, body?: unknown) => {
        const res = await runtime.app.handle(
          new Request(`http://localhost${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
        // biome-ignore lint/suspicious/noExplicitAny: answers read field by field
        return { status: res.status, body: (await res.json()) as any };
      };
      const admin = (
        await runtime.internals.services.tokens.mint({
          sub: "operator",
          tenantId: OPERATOR_TENANT_ID,
          roles: [],
          admin: true,
          ttlSeconds: 600,
        })
      ).token;
      const tenant = await call("POST", "/admin/tenants", admin, { name: "Log Co" });
      const url = `${receiver.url()}?token=receiver-query-token`;
      const sub = await call("POST", `/admin/subscriptions/${tenant.body.tenant_id}`, admin, {
        url,
        events: ["entry.created"],
      });
      expect(sub.status).toBe(201);
      await call("POST", "/memory/facts", tenant.body.token, { content: "body text never logged" });
      await receiver.waitFor(1);
      await pollUntil(
        () => runtime.internals.services.tenant(tenant.body.tenant_id).ask({ type: "subscription.list" }),
        (list) => list[0]?.consecutive_failures === 1,
        { timeoutMs: 5000 },
      );
      logClock.advance(FIRST_RETRY_MS);
      await receiver.waitFor(2);
      await pollUntil(
        () => lines.filter((l) => l.includes("disabled")),
        (found) => found.length > 0,
        { timeoutMs: 5000 },
      );
      const key = sub.body.secret.slice("whsec_".length);
      for (const line of lines) {
        expect(line).not.toContain(key);
        expect(line).not.toContain("receiver-query-token");
        expect(line).not.toContain("body text never logged");
        expect(line).not.toContain(String(receiver.port));
      }
    } finally {
      await receiver.stop();
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
