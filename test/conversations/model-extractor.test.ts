/**
 * The model extractor (issue 32, item 4), black-box: the runtime runs with
 * `MEMORY_RUNTIME_EXTRACTOR=http` against a local fake chat completions service that holds each
 * call until the test answers it, and a manual clock that times calls out and drives the backoff.
 * A conversation is acknowledged before the model is asked; what the model answers is written
 * where it validates, dropped and counted where it does not; a failing model fails no ingest.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/config.ts";
import { EXTRACT_BACKOFF_MS } from "../../src/conversations/model/model-extraction.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type FakeChat, startFakeChat } from "../fakes/chat-completions.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { scrape } from "../telemetry/scrape.ts";

const KEY = "sk-test-extractor-key-0123456789";
const MODEL = "fake-extractor-1";
const TIMEOUT_MS = 5_000;
let fake: FakeChat;
let h: Harness;
const clock = new ManualClock();

const env = () => ({
  MEMORY_RUNTIME_EXTRACTOR: "http",
  MEMORY_RUNTIME_EXTRACTOR_URL: fake.url,
  MEMORY_RUNTIME_EXTRACTOR_MODEL: MODEL,
  MEMORY_RUNTIME_EXTRACTOR_KEY: KEY,
  MEMORY_RUNTIME_EXTRACTOR_TIMEOUT_MS: String(TIMEOUT_MS),
});

beforeAll(async () => {
  fake = startFakeChat();
  h = await startHarness({ clock, env: env() });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

const MESSAGES = [
  { speaker: "Ada", content: "I really prefer green tea in the morning.", at: "2026-03-01T09:00:00Z" },
  { speaker: "Ada", content: "By the way, Grace works at Acme now.", at: "2026-03-01T09:01:00Z" },
];

async function converse(harness: Harness, token: string, session: string) {
  const res = await harness.json("POST", "/memory/conversations", {
    token,
    body: { session_id: session, subject: "ada", messages: MESSAGES },
  });
  expect(res.status).toBe(201);
  return res.body;
}

// biome-ignore lint/suspicious/noExplicitAny: health read field by field
async function extractorHealth(harness: Harness, tenantId: string): Promise<any> {
  const res = await harness.json("GET", `/tenants/${tenantId}/healthz`, { token: harness.adminToken });
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body)).not.toContain(KEY);
  return res.body.extractor;
}

// biome-ignore lint/suspicious/noExplicitAny: health read field by field
const healthUntil = (harness: Harness, tenantId: string, done: (x: any) => boolean) =>
  pollUntil(() => extractorHealth(harness, tenantId), done, { timeoutMs: 15_000 });

const modelEntries = async (harness: Harness, token: string, plural: string, session: string) => {
  const q = new URLSearchParams({ tag: "extracted", session_id: session, subject: "ada" });
  const res = await harness.json("GET", `/memory/${plural}?${q}`, { token });
  expect(res.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: entries read field by field
  return (res.body.items as any[]).filter((e) => e.data?.extracted?.by === `model:${MODEL}`);
};

const GOOD = {
  entries: [
    {
      kind: "preference",
      turns: [0],
      entry: { category: "fact", content: "Ada prefers green tea in the morning" },
    },
    {
      kind: "relationship",
      turns: [1],
      entry: {
        category: "relationship",
        content: "Grace works at Acme",
        subject: "Grace",
        predicate: "works_at",
        object: "Acme",
      },
    },
  ],
};

describe("a conversation under the model extractor", () => {
  test("is answered before the model is asked; the model's valid entries are stored with its name", async () => {
    const t = await h.createTenant();
    const reply = await converse(h, t.token, "good");
    // The rules extractor still writes at once, on the acknowledgement path.
    expect(reply.extractor).toBe("rules-v1");
    expect((await extractorHealth(h, t.tenant_id)).pending).toBe(1);

    const call = await fake.next();
    expect(call.body.model).toBe(MODEL);
    expect(call.body.response_format).toEqual({ type: "json_object" });
    expect(call.authorization).toBe(`Bearer ${KEY}`);
    expect(call.prompt).toContain("[0] 2026-03-01T09:00:00.000Z Ada: I really prefer green tea");
    expect(call.body.messages[0].content).toContain('"predicate"');
    call.reply(GOOD);

    const health = await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
    expect(health).toMatchObject({ kind: "http", model: MODEL, extracted: 2, dropped: 0, failed: 0 });
    const [fact] = await modelEntries(h, t.token, "facts", "good");
    const turnIds = reply.turns.map((x: { entry: { id: string } }) => x.entry.id);
    expect(fact).toMatchObject({
      content: "Ada prefers green tea in the morning",
      subject: "ada",
      session_id: "good",
      valid_from: "2026-03-01T09:00:00.000Z",
      origin: { kind: "extracted", by: `model:${MODEL}`, from: [turnIds[0]] },
      trust: "extracted",
    });
    const [rel] = await modelEntries(h, t.token, "relationships", "good");
    expect(rel).toMatchObject({
      subject: "Grace",
      predicate: "works_at",
      object: "Acme",
      scope_subject: "ada",
    });
  });

  test("an answer that is not JSON is counted failed; nothing of it is stored, the turns stay", async () => {
    const t = await h.createTenant();
    const reply = await converse(h, t.token, "garbled");
    (await fake.next()).reply("Sure! Here are the entries: {entries: [oops");
    const health = await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
    expect(health).toMatchObject({ extracted: 0, dropped: 0, failed: 1, failures: 0 });
    expect(health.last_error).toContain("not a JSON object");
    expect(await modelEntries(h, t.token, "facts", "garbled")).toEqual([]);
    const turns = await h.json("GET", "/memory/conversations/garbled?subject=ada", { token: t.token });
    expect(turns.body.turns).toHaveLength(reply.turns.length);
  });

  test("entries that violate their category's schema are dropped and counted, the valid one stored", async () => {
    const t = await h.createTenant();
    await converse(h, t.token, "mixed");
    (await fake.next()).reply({
      entries: [
        GOOD.entries[0],
        { kind: "decision", turns: [0], entry: { category: "decision", content: 42 } },
        { kind: "relationship", turns: [1], entry: { category: "relationship", content: "Grace at Acme" } },
        { kind: "preference", turns: [7], entry: { category: "fact", content: "a turn that is not there" } },
        { kind: "preference", turns: [0], entry: { category: "fact", content: "x", trust: "verified" } },
        { kind: "gossip", turns: [0], entry: { category: "fact", content: "an unknown kind" } },
      ],
    });
    const health = await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
    expect(health).toMatchObject({ extracted: 1, dropped: 5, failed: 0 });
    expect((await modelEntries(h, t.token, "facts", "mixed")).map((e) => e.content)).toEqual([
      "Ada prefers green tea in the morning",
    ]);
    expect(await modelEntries(h, t.token, "relationships", "mixed")).toEqual([]);
    expect(await modelEntries(h, t.token, "decisions", "mixed")).toEqual([]);
    const metrics = await scrape(h);
    expect(
      metrics.value("memory_runtime_extractor_outcomes_total", { outcome: "dropped" }),
    ).toBeGreaterThanOrEqual(5);
    expect(metrics.value("memory_runtime_extractor_backlog")).toBe(0);
  });

  test("a call that times out is retried after the backoff, and its answer then stored", async () => {
    const t = await h.createTenant();
    await converse(h, t.token, "slow");
    await fake.next(); // held: never answered
    clock.advance(TIMEOUT_MS);
    const waiting = await healthUntil(h, t.tenant_id, (x) => x.state === "retrying");
    expect(waiting).toMatchObject({ pending: 1, failures: 1 });
    expect(waiting.last_error).toContain(`did not answer within ${TIMEOUT_MS} ms`);
    clock.advance(EXTRACT_BACKOFF_MS);
    (await fake.next()).reply(GOOD);
    const health = await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
    expect(health).toMatchObject({ extracted: 2, failures: 0, state: "idle" });
  });

  test("429s back off (1 s, then 2 s) without failing the ingest, then the answer is stored", async () => {
    const t = await h.createTenant();
    await converse(h, t.token, "busy");
    (await fake.next()).fail(429, `{"error":"rate limited for ${KEY}"}`);
    const first = await healthUntil(h, t.tenant_id, (x) => x.failures === 1);
    expect(first.state).toBe("retrying");
    expect(Date.parse(first.retry_at) - clock.now()).toBe(EXTRACT_BACKOFF_MS);
    expect(first.last_error).toContain("HTTP 429");
    expect(first.last_error).toContain("[redacted]");
    // Another conversation meanwhile is acknowledged as ever.
    await converse(h, t.token, "busy-2");
    clock.advance(EXTRACT_BACKOFF_MS);
    (await fake.next()).fail(429);
    const second = await healthUntil(h, t.tenant_id, (x) => x.failures === 2);
    expect(Date.parse(second.retry_at) - clock.now()).toBe(2 * EXTRACT_BACKOFF_MS);
    clock.advance(2 * EXTRACT_BACKOFF_MS);
    (await fake.next()).reply(GOOD);
    (await fake.next()).reply({ entries: [] });
    const health = await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
    expect(health).toMatchObject({ extracted: 2, failures: 0 });
    expect(await modelEntries(h, t.token, "facts", "busy")).toHaveLength(1);
  });
});

test("a 429's Retry-After is waited instead of the backoff", async () => {
  const t = await h.createTenant();
  await converse(h, t.token, "advised");
  (await fake.next()).fail(429, "{}", { "retry-after": "7" });
  const waiting = await healthUntil(h, t.tenant_id, (x) => x.failures === 1);
  expect(Date.parse(waiting.retry_at) - clock.now()).toBe(7_000);
  clock.advance(6_999);
  expect((await extractorHealth(h, t.tenant_id)).state).toBe("retrying");
  clock.advance(1);
  (await fake.next()).reply({ entries: [] });
  await healthUntil(h, t.tenant_id, (x) => x.pending === 0 && x.failures === 0);
});

test("a long transcript is asked about in parts of 50 turns", async () => {
  const t = await h.createTenant();
  const at = (i: number) => new Date(clock.now() - 3_600_000 + i * 1000).toISOString();
  const messages = Array.from({ length: 60 }, (_, i) => ({
    speaker: "Ada",
    content: `Note number ${i}.`,
    at: at(i),
  }));
  const res = await h.json("POST", "/memory/conversations", {
    token: t.token,
    body: { session_id: "long", subject: "ada", messages },
  });
  expect(res.status).toBe(201);
  expect((await extractorHealth(h, t.tenant_id)).pending).toBe(2);
  const first = await fake.next();
  expect(first.prompt).toContain("[49] ");
  expect(first.prompt).not.toContain("[50] ");
  first.reply({ entries: [] });
  const second = await fake.next();
  expect(second.prompt).toContain("[9] ");
  expect(second.prompt).toContain("Note number 59.");
  expect(second.prompt).not.toContain("[10] ");
  second.reply({
    entries: [{ kind: "personal", turns: [9], entry: { category: "fact", content: "Ada took 60 notes" } }],
  });
  await healthUntil(h, t.tenant_id, (x) => x.pending === 0);
  const [fact] = await modelEntries(h, t.token, "facts", "long");
  expect(fact.origin.from).toEqual([res.body.turns[59].entry.id]);
});

test("a bridge thread turned into a session is read by the model too", async () => {
  const t = await h.createTenant();
  h.env[`BRIDGE_CONVERSATIONS_${t.tenant_id}`] = "true";
  await h.runtime.bridge.deliver(t.tenant_id, {
    type: "message",
    channel: "C9",
    user: "U7",
    text: "Grace works at Acme now.",
    ts: "1700000000.000100",
  });
  const call = await fake.next();
  expect(call.prompt).toContain("U7: Grace works at Acme now.");
  call.reply({ entries: [{ ...GOOD.entries[1], turns: [0] }] });
  await healthUntil(h, t.tenant_id, (x) => x.pending === 0 && x.extracted === 1);
  const q = new URLSearchParams({ tag: "extracted", session_id: "chat:C9:1700000000.000100" });
  const rels = await h.json("GET", `/memory/relationships?${q}`, { token: t.token });
  const byModel = rels.body.items.filter(
    (e: { origin: { by?: string } }) => e.origin.by === `model:${MODEL}`,
  );
  expect(byModel.map((e: { object: string }) => e.object)).toEqual(["Acme"]);
});

test("a job pending at a restart is asked again after it, and stored once", async () => {
  const restarting = await startHarness({ clock, env: env() });
  try {
    const t = await restarting.createTenant();
    await converse(restarting, t.token, "across");
    const before = await fake.next(); // held while the runtime stops
    await restarting.restart();
    // The tenant's vault opens at its first message: its queue is read from it.
    expect((await extractorHealth(restarting, t.tenant_id)).pending).toBe(1);
    before.fail(503);
    (await fake.next()).reply(GOOD);
    await healthUntil(restarting, t.tenant_id, (x) => x.pending === 0 && x.extracted === 2);
    expect(await modelEntries(restarting, t.token, "facts", "across")).toHaveLength(1);
  } finally {
    await restarting.close();
  }
});

describe("the model extractor's configuration", () => {
  const base = { MEMORY_RUNTIME_JWT_SECRET: "x".repeat(40), MEMORY_RUNTIME_DATA_DIR: "/tmp/unused" };
  test("is the rules extractor alone by default; http needs a URL and a model", () => {
    expect(loadConfig(base).extractor.kind).toBe("deterministic");
    expect(() => loadConfig({ ...base, MEMORY_RUNTIME_EXTRACTOR: "http" })).toThrow(
      "MEMORY_RUNTIME_EXTRACTOR=http needs MEMORY_RUNTIME_EXTRACTOR_URL",
    );
    const noModel = {
      ...base,
      MEMORY_RUNTIME_EXTRACTOR: "http",
      MEMORY_RUNTIME_EXTRACTOR_URL: "http://x/v1",
    };
    expect(() => loadConfig(noModel)).toThrow("needs MEMORY_RUNTIME_EXTRACTOR_MODEL");
    expect(() => loadConfig({ ...base, MEMORY_RUNTIME_EXTRACTOR: "gpt" })).toThrow(
      "MEMORY_RUNTIME_EXTRACTOR",
    );
  });
});
