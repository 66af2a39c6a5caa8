/**
 * Embedding off the acknowledgement path (issue 20, item 4), black-box over HTTP: the runtime's
 * embedder is an `http` one pointing at a local embeddings service the test holds back or fails.
 * A write is answered after its commit, found by its words at once, and by its vector once the
 * background embedder has made it; a failing service fails no write and shows in health.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import { paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { backlogDrained, healthUntil, indexHealth } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const DIMS = 16;
let fake: FakeEmbeddings;
let h: Harness;
const clock = new ManualClock();

beforeAll(async () => {
  fake = startFakeEmbeddings(DIMS);
  h = await startHarness({
    clock,
    env: {
      MEMORY_RUNTIME_EMBEDDER: "http",
      MEMORY_RUNTIME_EMBEDDINGS_URL: fake.url,
      MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS),
    },
  });
});
afterAll(async () => {
  await h.close();
  fake.stop();
});
beforeEach(() => fake.setMode("serve"));

async function write(token: string, content: string): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const search = (token: string, query: string) =>
  h.json("POST", "/memory/search", { token, body: { query, limit: 5 } });

const embeddingOf = async (token: string, id: string): Promise<number[]> =>
  (await h.json("GET", `/memory/facts/${id}?include=embedding`, { token })).body.embedding;

describe("a write whose vector is held back", () => {
  test("is answered, found by its words at once, and by its vector once embedded", async () => {
    const t = await h.createTenant();
    fake.setMode("hold", (text) => text.includes("Thursday"));
    const asked = fake.requests;
    const id = await write(t.token, "The quarterly budget review moved to Thursday");
    await fake.received(asked + 1);

    const early = await search(t.token, "budget review");
    expect(early.status).toBe(200);
    expect(early.body.results[0].entry.id).toBe(id);
    expect(early.body.results[0].scores.vector).toBe(0);
    expect(early.body.results[0].scores.lexical).toBeGreaterThan(0);
    expect(early.body.pending_vectors).toBe(1);
    const waiting = await indexHealth(h, t.tenant_id);
    expect(waiting.pending_vectors).toBe(1);
    expect(waiting.embedder).toMatchObject({ kind: "http", state: "embedding", in_flight: 1 });
    expect(await embeddingOf(t.token, id)).toEqual([]);

    fake.setMode("serve");
    await backlogDrained(h, t.tenant_id);
    const late = await search(t.token, "budget review");
    expect(late.body.results[0].entry.id).toBe(id);
    expect(late.body.results[0].scores.vector).toBeGreaterThan(0);
    expect(late.body.pending_vectors).toBeUndefined();
    expect(await embeddingOf(t.token, id)).toHaveLength(DIMS);
    expect((await indexHealth(h, t.tenant_id)).vectors).toBe(1);
  });

  test("MCP's memory_search answers pending_vectors as the route does", async () => {
    const t = await h.createTenant();
    const content = "The greenhouse heater is checked weekly";
    fake.setMode("hold", (text) => text === content);
    const asked = fake.requests;
    await write(t.token, content);
    await fake.received(asked + 1);
    const call = { name: "memory_search", arguments: { query: "greenhouse heater" } };
    const res = await h.json("POST", "/mcp", {
      token: t.token,
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: call },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent.pending_vectors).toBe(1);
    fake.setMode("serve");
    await backlogDrained(h, t.tenant_id);
  });

  test("a batch's entries and a webhook's are queued and embedded the same way", async () => {
    const t = await h.createTenant();
    setSecrets(h, t.tenant_id, paymentsSender.secrets);
    fake.setMode("hold");
    const batch = await h.json("POST", "/memory/facts/batch", {
      token: t.token,
      body: { entries: [{ content: "Invoices go out on the first" }, { content: "Refunds take five days" }] },
    });
    expect(batch.status).toBe(201);
    const body = stripeEvent("invoice.payment_failed", {
      id: "in_42",
      number: "INV-42",
      amount_due: 4200,
      currency: "usd",
      customer: "cus_7",
    });
    const url = `/webhooks/payments/${t.tenant_id}`;
    const signed = await paymentsSender.sign(body, { now: clock.now(), url });
    const delivery = await h.json("POST", url, { raw: signed.body as string, headers: signed.headers });
    expect(delivery.status).toBe(200);
    expect(delivery.body.entries).toHaveLength(1);
    expect((await indexHealth(h, t.tenant_id)).pending_vectors).toBe(3);

    fake.setMode("serve");
    const done = await backlogDrained(h, t.tenant_id);
    expect(done.vectors).toBe(3);
    const found = await search(t.token, "INV-42");
    expect(found.body.results[0].entry.id).toBe(delivery.body.entries[0]);
    expect(found.body.results[0].scores.vector).toBeGreaterThan(0);
  });

  test("an entry erased while its vector is being made leaves the backlog, and gets no vector", async () => {
    const t = await h.createTenant();
    fake.setMode("hold", (text) => text.includes("phone"));
    const asked = fake.requests;
    const id = await write(t.token, "Ada's phone number is private");
    await fake.received(asked + 1);
    const erased = await h.json("POST", `/admin/tenants/${t.tenant_id}/erase`, {
      token: h.adminToken,
      body: { ids: [id] },
    });
    expect(erased.status).toBe(200);
    expect((await indexHealth(h, t.tenant_id)).pending_vectors).toBe(0);
    fake.setMode("serve");
    const settled = await healthUntil(h, t.tenant_id, (index) => index.embedder?.in_flight === 0);
    expect(settled).toMatchObject({ vectors: 0, pending_vectors: 0 });
  });
});

describe("an export taken while entries wait for their vectors", () => {
  test("carries no backlog: the tenant importing it embeds them", async () => {
    const source = await h.createTenant();
    const contents = ["The archive moves to tape in June", "Tape drives are leased"];
    fake.setMode("hold", (text) => contents.includes(text));
    const asked = fake.requests;
    for (const content of contents) await write(source.token, content);
    await fake.received(asked + 1);
    const exported = await h.call("GET", `/admin/tenants/${source.tenant_id}/export`, {
      token: h.adminToken,
    });
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text).not.toContain('"type":"embedding"');

    const target = await h.createTenant();
    const imported = await h.call("POST", `/admin/tenants/${target.tenant_id}/import`, {
      token: h.adminToken,
      raw: text,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(imported.status).toBe(200);
    fake.setMode("serve");
    const done = await backlogDrained(h, target.tenant_id);
    expect(done.vectors).toBe(2);
    const found = await search(target.token, "tape archive");
    expect(found.body.results[0].scores.vector).toBeGreaterThan(0);
    await backlogDrained(h, source.tenant_id);
  });
});

/**
 * Drains the tenant's backlog once the fake serves again. A retry already in flight when the mode
 * changed may still fail and set a new wait on the manual clock, so the clock moves on until no
 * vector is pending (each step longer than the longest backoff the tests reach).
 */
function drainedWithClock(tenantId: string) {
  return pollUntil(
    async () => {
      clock.advance(5_000);
      return indexHealth(h, tenantId);
    },
    (index) => index.pending_vectors === 0,
    { timeoutMs: 15_000 },
  );
}

describe("an embeddings service that fails", () => {
  test("fails no write: the batch is retried with backoff, shown in health, then embedded", async () => {
    const t = await h.createTenant();
    const content = "Support hours are nine to five";
    const asked = () => fake.texts.filter((text) => text === content).length;
    fake.setMode("fail", (text) => text === content);
    const id = await write(t.token, content);
    const failing = await healthUntil(h, t.tenant_id, (index) => index.embedder?.state === "retrying");
    expect(asked()).toBe(1);
    expect(failing.pending_vectors).toBe(1);
    expect(failing.embedder).toMatchObject({ kind: "http", failures: 1 });
    expect(failing.embedder?.last_error).toContain("HTTP 503");
    expect(failing.embedder?.retry_at).toBe(new Date(clock.now() + 1000).toISOString());
    // Found by its words meanwhile.
    expect((await search(t.token, "support hours")).body.results[0].entry.id).toBe(id);

    // Nothing is asked again before the retry time; at it, the service answers.
    clock.advance(999);
    expect(asked()).toBe(1);
    fake.setMode("serve");
    clock.advance(1);
    const done = await backlogDrained(h, t.tenant_id);
    expect(done.embedder).toMatchObject({ state: "idle", failures: 0 });
    expect(done.embedder?.retry_at).toBeUndefined();
    expect(await embeddingOf(t.token, id)).toHaveLength(DIMS);
  });

  test("a text it refuses holds back only itself: the entries after it are embedded", async () => {
    const t = await h.createTenant();
    const refused = "A text the embeddings service refuses";
    fake.setMode("fail", (text) => text === refused);
    await write(t.token, refused);
    await healthUntil(h, t.tenant_id, (index) => index.embedder?.state === "retrying");
    const good = await write(t.token, "The canteen opens at noon");
    clock.advance(1000);
    const partly = await healthUntil(h, t.tenant_id, (index) => index.vectors === 1);
    expect(partly.pending_vectors).toBe(1);
    expect(await embeddingOf(t.token, good)).toHaveLength(DIMS);
    fake.setMode("serve");
    await drainedWithClock(t.tenant_id);
  });

  test("each failure in a row doubles the wait", async () => {
    const t = await h.createTenant();
    fake.setMode("fail");
    const asked = fake.requests;
    await write(t.token, "The fire drill is on Friday");
    await healthUntil(h, t.tenant_id, (index) => index.embedder?.failures === 1);
    clock.advance(1000);
    await fake.received(asked + 2);
    const second = await healthUntil(h, t.tenant_id, (index) => index.embedder?.failures === 2);
    expect(second.embedder?.retry_at).toBe(new Date(clock.now() + 2000).toISOString());
    fake.setMode("serve");
    await drainedWithClock(t.tenant_id);
  });
});
