/**
 * The vault records which embedder made its vectors. Started with another one (another kind,
 * model or number of dimensions), the runtime drops the old vectors and embeds every entry again
 * in the background, searching by words meanwhile: never a 500 (seen switching hash → local).
 * A restart resumes a backlog left unfinished. Black-box over HTTP, restarts on one data directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import { backlogDrained, indexHealth } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const DIMS = 16;
let fake: FakeEmbeddings;
let h: Harness;

beforeAll(async () => {
  fake = startFakeEmbeddings(DIMS);
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

/** Restarts the runtime on the same data directory with these embedder variables. */
async function restartWith(env: Record<string, string | undefined>): Promise<void> {
  for (const key of Object.keys(h.env)) if (key.startsWith("MEMORY_RUNTIME_EMBEDD")) delete h.env[key];
  Object.assign(h.env, env);
  await h.restart();
}

const httpEmbedder = () => ({
  MEMORY_RUNTIME_EMBEDDER: "http",
  MEMORY_RUNTIME_EMBEDDINGS_URL: fake.url,
  MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS),
});

const search = (token: string, query: string) =>
  h.json("POST", "/memory/search", { token, body: { query, limit: 5 } });

async function embeddingLength(token: string, id: string): Promise<number> {
  const read = await h.json("GET", `/memory/facts/${id}?include=embedding`, { token });
  return read.body.embedding.length;
}

describe("switching the embedder on existing data", () => {
  let tenant: { tenant_id: string; token: string };
  const ids: string[] = [];

  beforeAll(async () => {
    tenant = await h.createTenant();
    for (const content of ["The boiler is serviced every spring", "Parking permits renew in May"]) {
      const res = await h.json("POST", "/memory/facts", { token: tenant.token, body: { content } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    expect(await embeddingLength(tenant.token, ids[0]!)).toBe(384);
  });

  test("hash (384) → http (16): search answers by words, then every entry is embedded again", async () => {
    fake.setMode("hold", (text) => text !== "boiler service");
    await restartWith(httpEmbedder());
    const early = await search(tenant.token, "boiler service");
    expect(early.status).toBe(200);
    expect(early.body.results[0].entry.id).toBe(ids[0]);
    expect(early.body.pending_vectors).toBe(2);
    expect((await indexHealth(h, tenant.tenant_id)).vectors).toBe(0);

    fake.setMode("serve");
    const done = await backlogDrained(h, tenant.tenant_id);
    expect(done.vectors).toBe(2);
    for (const id of ids) expect(await embeddingLength(tenant.token, id)).toBe(DIMS);
    const late = await search(tenant.token, "boiler service");
    expect(late.body.results[0].scores.vector).toBeGreaterThan(0);
    expect(late.body.pending_vectors).toBeUndefined();
  });

  test("http (16) → hash with 32 dims: the hash embedder re-embeds them in the background", async () => {
    await restartWith({ MEMORY_RUNTIME_EMBEDDER: "hash", MEMORY_RUNTIME_EMBEDDING_DIMS: "32" });
    const answer = await search(tenant.token, "parking permits");
    expect(answer.status).toBe(200);
    expect(answer.body.results[0].entry.id).toBe(ids[1]);
    const done = await backlogDrained(h, tenant.tenant_id);
    expect(done.vectors).toBe(2);
    for (const id of ids) expect(await embeddingLength(tenant.token, id)).toBe(32);
  });

  test("the same embedder again embeds nothing again", async () => {
    const asked = fake.texts.length;
    await restartWith({ MEMORY_RUNTIME_EMBEDDER: "hash", MEMORY_RUNTIME_EMBEDDING_DIMS: "32" });
    const health = await indexHealth(h, tenant.tenant_id);
    expect(health).toMatchObject({ vectors: 2, pending_vectors: 0 });
    expect(health.embedder?.embedded).toBe(0);
    expect(fake.texts.length).toBe(asked);
  });
});

describe("a restart", () => {
  test("resumes the backlog it left: each entry is embedded, once", async () => {
    await restartWith(httpEmbedder());
    const t = await h.createTenant();
    const contents = ["Keys are kept at reception", "The lift is inspected yearly", "Visitors sign in"];
    fake.setMode("hold", (text) => contents.includes(text));
    const asked = fake.requests;
    const batch = await h.json("POST", "/memory/facts/batch", {
      token: t.token,
      body: { entries: contents.map((content) => ({ content })) },
    });
    expect(batch.status).toBe(201);
    await fake.received(asked + 1);
    // Stopped while the batch is being embedded: its vectors, when they come, are dropped.
    await h.restart();
    expect((await indexHealth(h, t.tenant_id)).pending_vectors).toBe(3);
    fake.setMode("serve");
    const done = await backlogDrained(h, t.tenant_id);
    expect(done.vectors).toBe(3);
    for (const entry of batch.body.entries) expect(await embeddingLength(t.token, entry.id)).toBe(DIMS);
    // The held request (answered after the stop) and the one after the restart: nothing stored twice.
    expect(fake.texts.filter((text) => contents.includes(text))).toHaveLength(6);
  });
});
