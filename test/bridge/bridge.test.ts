import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectSocketMode } from "../../examples/socket-mode-adapter.ts";
import {
  BridgeEventInvalid,
  BridgeQueueFull,
  createRuntime,
  type MemoryRuntime,
  NotFound,
} from "../../src/lib.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { startFakeChatPlatform } from "../fakes/chat-platform.ts";
import { TEST_SECRET } from "../helpers/harness.ts";

/**
 * The messaging bridge through the library API: a runtime built from `env` alone, events handed to
 * `bridge.deliver` in-process, read back through the same runtime's HTTP app.
 */
const dir = mkdtempSync(join(tmpdir(), "mrt-bridge-"));
let runtime: MemoryRuntime;
let admin: string;

beforeAll(async () => {
  runtime = createRuntime({
    env: {
      MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
      MEMORY_RUNTIME_DATA_DIR: join(dir, "main"),
      MEMORY_RUNTIME_EMBEDDER: "hash",
      MEMORY_RUNTIME_LOG: "off",
    },
    log: () => undefined,
  });
  admin = (
    await runtime.internals.services.tokens.mint({
      sub: "op",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 600,
    })
  ).token;
});
afterAll(async () => {
  await runtime.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  rt: MemoryRuntime,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies field by field
): Promise<{ status: number; body: any }> {
  const res = await rt.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
  return { status: res.status, body: await res.json() };
}

async function newTenant(rt = runtime, token = admin): Promise<{ tenant_id: string; token: string }> {
  const name = `Bridge ${Math.random().toString(36).slice(2)}`;
  const created = await call(rt, "POST", "/admin/tenants", token, { name });
  expect(created.status).toBe(201);
  return created.body;
}

let ts = 1763720000;
const nextTs = () => `${++ts}.000100`;
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  channel: "C024BE91L",
  user: "U2147483697",
  text,
  ts: nextTs(),
  ...extra,
});

describe("bridge.deliver: the four event types", () => {
  test("a message becomes a fact with channel, user and thread", async () => {
    const t = await newTenant();
    const event = message("We ship the billing migration on Friday", { thread_ts: "1763710000.000001" });
    const result = await runtime.bridge.deliver(t.tenant_id, event);
    expect(result).toMatchObject({ duplicates: 0, dead_lettered: [], ignored: 0 });
    expect(result.entries).toHaveLength(1);
    const fact = await call(runtime, "GET", `/memory/facts/${result.entries[0]}`, t.token);
    expect(fact.body).toMatchObject({
      content: "We ship the billing migration on Friday",
      tags: ["messaging", "channel:C024BE91L", "user:U2147483697", "thread:1763710000.000001"],
      data: { channel: "C024BE91L", user: "U2147483697", ts: event.ts, thread_ts: "1763710000.000001" },
      source: { system: "messaging", event_id: `C024BE91L:${event.ts}:message`, event_type: "message" },
    });
  });

  test("a ✅ reaction on a stored message is a decision naming that message; other reactions are ignored", async () => {
    const t = await newTenant();
    const event = message("Let's go with Postgres for billing");
    const [messageId] = (await runtime.bridge.deliver(t.tenant_id, event)).entries;
    const thumbs = {
      type: "reaction_added",
      user: "U9",
      reaction: "thumbsup",
      item: { type: "message", channel: "C024BE91L", ts: event.ts },
    };
    expect(await runtime.bridge.deliver(t.tenant_id, thumbs)).toEqual({
      entries: [],
      duplicates: 0,
      dead_lettered: [],
      ignored: 1,
      held: 0,
    });
    const check = { ...thumbs, reaction: "white_check_mark", event_ts: nextTs() };
    const result = await runtime.bridge.deliver(t.tenant_id, check);
    expect(result.entries).toHaveLength(1);
    const decision = await call(runtime, "GET", `/memory/decisions/${result.entries[0]}`, t.token);
    expect(decision.body).toMatchObject({
      content: "Let's go with Postgres for billing",
      rationale: "Promoted to a decision by U9",
      data: { message_id: messageId, channel: "C024BE91L", ts: event.ts, promoted_by: "U9" },
      source: { system: "messaging", event_type: "reaction_added" },
    });
  });

  test("member joined → relationship; app mention → workflow", async () => {
    const t = await newTenant();
    const joined = await runtime.bridge.deliver(t.tenant_id, {
      type: "member_joined_channel",
      user: "U7",
      channel: "C5",
    });
    const relationship = await call(runtime, "GET", `/memory/relationships/${joined.entries[0]}`, t.token);
    expect(relationship.body).toMatchObject({ subject: "U7", predicate: "member_of", object: "C5" });
    const mention = await runtime.bridge.deliver(t.tenant_id, {
      type: "app_mention",
      user: "U7",
      text: "<@U0LAN0Z89> summarise this week's incidents",
      ts: nextTs(),
      channel: "C5",
    });
    const workflow = await call(runtime, "GET", `/memory/workflows/${mention.entries[0]}`, t.token);
    expect(workflow.body.content).toBe("<@U0LAN0Z89> summarise this week's incidents");
    expect(workflow.body.tags).toContain("mention");
  });

  test("a redelivery is a duplicate and writes nothing", async () => {
    const t = await newTenant();
    const event = message("Said once");
    expect((await runtime.bridge.deliver(t.tenant_id, event)).entries).toHaveLength(1);
    expect(await runtime.bridge.deliver(t.tenant_id, event)).toEqual({
      entries: [],
      duplicates: 1,
      dead_lettered: [],
      ignored: 0,
      held: 0,
    });
  });
});

describe("bridge.deliver: order, failures and bounds", () => {
  test("1,000 events delivered at once for one tenant are stored in delivery order, exactly once", async () => {
    const t = await newTenant();
    const events = Array.from({ length: 1000 }, (_, i) => message(`ordered ${i}`));
    const results = await Promise.all(events.map((e) => runtime.bridge.deliver(t.tenant_id, e)));
    expect(results.every((r) => r.entries.length === 1 && r.duplicates === 0)).toBe(true);
    const stored: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ content: string }>; next_cursor: string | null } } = await call(
        runtime,
        "GET",
        `/memory/facts?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
        t.token,
      );
      stored.push(...page.body.items.map((e) => e.content));
      cursor = page.body.next_cursor;
    } while (cursor);
    // Lists are newest first: reversed, they are the order of writing.
    expect(stored.reverse()).toEqual(events.map((e) => e.text));
  });

  test("a ✅ on a message not yet stored is dead-lettered, and replayed once the message has arrived", async () => {
    const t = await newTenant();
    const early = message("Arrives after its reaction");
    const reaction = {
      type: "reaction_added",
      user: "U3",
      reaction: "white_check_mark",
      item: { channel: early.channel, ts: early.ts },
    };
    const first = await runtime.bridge.deliver(t.tenant_id, reaction);
    const eventId = `${early.channel}:${early.ts}:reaction_added`;
    expect(first).toEqual({ entries: [], duplicates: 0, dead_lettered: [eventId], ignored: 0, held: 0 });
    const letters = await call(runtime, "GET", `/admin/webhooks/dead-letters/${t.tenant_id}`, admin);
    expect(letters.body.dead_letters[0]).toMatchObject({ source: "messaging", status: "dead" });
    expect(letters.body.dead_letters[0].last_error).toStartWith("unknown_message");
    await runtime.bridge.deliver(t.tenant_id, early);
    const replayed = await call(
      runtime,
      "POST",
      `/admin/webhooks/replay/${t.tenant_id}/${encodeURIComponent(eventId)}`,
      admin,
    );
    expect(replayed.body).toMatchObject({ event_id: eventId, status: "replayed" });
    const decision = await call(runtime, "GET", `/memory/decisions/${replayed.body.entries[0]}`, t.token);
    expect(decision.body.content).toBe("Arrives after its reaction");
  });

  test("a malformed event is a BridgeEventInvalid naming the fault, and nothing is written", async () => {
    const t = await newTenant();
    const bad: unknown[] = [
      { type: "message", channel: "C1", user: "U1", ts: "1.1" }, // no text
      { type: "message", channel: "C1", user: "U1", text: "x", ts: "yesterday" },
      { type: "reaction_added", user: "U1", reaction: "white_check_mark", item: {} },
      { type: "channel_archive", channel: "C1" },
      null,
      "message",
      { type: "message", channel: "", user: "U1", text: "x", ts: "1.1" },
    ];
    for (const event of bad) {
      const error = await runtime.bridge.deliver(t.tenant_id, event).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BridgeEventInvalid);
      expect((error as BridgeEventInvalid).errors?.length).toBeGreaterThan(0);
    }
    const health = await call(runtime, "GET", `/tenants/${t.tenant_id}/healthz`, t.token);
    expect(health.body.vault.entries).toBe(0);
    expect(health.body.dead_letters).toBe(0);
  });

  test("an unknown tenant is a NotFound", async () => {
    for (const tenantId of ["01JDB2X6J3KQ5W8Z3M4N7P9R2S", "../../etc", ""]) {
      await expect(runtime.bridge.deliver(tenantId, message("to nobody"))).rejects.toBeInstanceOf(NotFound);
    }
  });

  test("past the queue bound, deliver refuses clearly instead of growing memory", async () => {
    const bounded = createRuntime({
      env: {
        MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
        MEMORY_RUNTIME_DATA_DIR: join(dir, "bounded"),
        MEMORY_RUNTIME_EMBEDDER: "hash",
        MEMORY_RUNTIME_LOG: "off",
        MEMORY_RUNTIME_BRIDGE_QUEUE: "5",
      },
      log: () => undefined,
    });
    try {
      const t = await newTenant(bounded, admin);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => bounded.bridge.deliver(t.tenant_id, message(`flood ${i}`))),
      );
      const refused = outcomes.filter((o) => o.status === "rejected");
      const taken = outcomes.filter((o) => o.status === "fulfilled");
      expect(refused.length).toBe(35);
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(BridgeQueueFull);
      expect(((refused[0] as PromiseRejectedResult).reason as Error).message).toContain("5 bridge events");
      const health = await call(bounded, "GET", `/tenants/${t.tenant_id}/healthz`, t.token);
      expect(health.body.vault.entries).toBe(taken.length);
      // Once the queue has drained, deliveries are taken again.
      expect((await bounded.bridge.deliver(t.tenant_id, message("after the flood"))).entries).toHaveLength(1);
    } finally {
      await bounded.stop();
    }
  });

  test("the tenant's health shows the bridge's state and last event time", async () => {
    const t = await newTenant();
    await runtime.bridge.deliver(t.tenant_id, message("for health"));
    const health = await call(runtime, "GET", `/tenants/${t.tenant_id}/healthz`, t.token);
    expect(health.body.connectors.messaging).toMatchObject({ state: "active", events: 1, last_error: null });
    expect(health.body.connectors.messaging.last_event_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe("the example Socket Mode adapter", () => {
  test("turns the platform's envelopes into bridge deliveries, acknowledging each once stored", async () => {
    const platform = startFakeChatPlatform();
    const t = await newTenant();
    const lines: string[] = [];
    const adapter = connectSocketMode({
      url: platform.url,
      tenantId: t.tenant_id,
      bridge: runtime.bridge,
      log: (l) => lines.push(l),
    });
    try {
      const sent = [
        message("From the socket"),
        { type: "member_joined_channel", user: "U5", channel: "C024BE91L" },
      ];
      for (const event of sent) platform.push(event);
      platform.push({ type: "message", channel: "C1" }); // malformed: acknowledged, not retried
      await platform.allAcked();
      expect(platform.acked.size).toBe(3);
      const health = await call(runtime, "GET", `/tenants/${t.tenant_id}/healthz`, t.token);
      expect(health.body.vault.entries).toBe(2);
      expect(lines.some((l) => l.includes("refused: malformed message event"))).toBe(true);
      // The platform rotates the socket: events sent after it reach the next connection.
      platform.disconnect();
      await adapter.closed;
      const again = connectSocketMode({
        url: platform.url,
        tenantId: t.tenant_id,
        bridge: runtime.bridge,
        log: (l) => lines.push(l),
      });
      platform.push(message("After the reconnect"));
      await platform.allAcked();
      again.stop();
      expect(
        (await call(runtime, "GET", `/tenants/${t.tenant_id}/healthz`, t.token)).body.vault.entries,
      ).toBe(3);
    } finally {
      adapter.stop();
      platform.stop();
    }
  });
});
