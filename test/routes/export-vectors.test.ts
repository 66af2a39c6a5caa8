/**
 * Export and import carry vectors (issue 30, item 4): the export's header names the embedder that
 * made them; an import under the same embedder keeps them (the tenant is searchable by vector at
 * once, nothing is embedded again), under another one queues its entries for the runtime's own
 * embedder, and an export of before the header's `embedder` still imports. Two runtimes: `hash`,
 * and `http` on a local embeddings service the test holds back, so what is queued is seen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FakeEmbeddings, startFakeEmbeddings } from "../fakes/embeddings-service.ts";
import { backlogDrained, indexHealth } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const DIMS = 384;
let hashed: Harness;
let served: Harness;
let fake: FakeEmbeddings;

beforeAll(async () => {
  fake = startFakeEmbeddings(DIMS);
  hashed = await startHarness();
  served = await startHarness({
    env: {
      MEMORY_RUNTIME_EMBEDDER: "http",
      MEMORY_RUNTIME_EMBEDDINGS_URL: fake.url,
      MEMORY_RUNTIME_EMBEDDINGS_MODEL: "fake-model",
      MEMORY_RUNTIME_EMBEDDING_DIMS: String(DIMS),
    },
  });
});
afterAll(async () => {
  await hashed.close();
  await served.close();
  fake.stop();
});

const NOTES = [
  "The quarterly ledger review moved to Thursday",
  "Invoices above ten thousand need a second approval",
  "The warehouse in Lyon closes for inventory in March",
];

// biome-ignore lint/suspicious/noExplicitAny: lines are read field by field
const parseLines = (text: string): any[] =>
  text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
const joinLines = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

/** A tenant of `h` holding NOTES, each with its vector, and its export. */
async function exported(h: Harness): Promise<{ text: string; ids: string[] }> {
  const t = await h.createTenant();
  const ids: string[] = [];
  for (const content of NOTES) {
    const res = await h.json("POST", "/memory/facts", { token: t.token, body: { content } });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  await backlogDrained(h, t.tenant_id);
  const res = await h.call("GET", `/admin/tenants/${t.tenant_id}/export`, { token: h.adminToken });
  expect(res.status).toBe(200);
  return { text: await res.text(), ids };
}

/** Imports `text` into a new tenant of `h`; its answer. */
async function imported(h: Harness, text: string) {
  const t = await h.createTenant();
  const res = await h.call("POST", `/admin/tenants/${t.tenant_id}/import`, {
    token: h.adminToken,
    raw: text,
    headers: { "content-type": "application/x-ndjson" },
  });
  // biome-ignore lint/suspicious/noExplicitAny: the import's answer, read field by field
  const body = (await res.json()) as any;
  expect({ status: res.status, body }).toMatchObject({ status: 200 });
  return { ...t, body };
}

const search = (h: Harness, token: string, query: string) =>
  h.json("POST", "/memory/search", { token, body: { query, limit: 3 } });

describe("an export carries its vectors and what made them", () => {
  test("the header names the embedder; every entry's vector is a record", async () => {
    const { text } = await exported(hashed);
    const lines = parseLines(text);
    expect(lines[0]).toMatchObject({ type: "header", embedding_dims: DIMS, embedder: `hash/${DIMS}` });
    expect(lines.filter((l) => l.type === "embedding")).toHaveLength(NOTES.length);
    const { text: other } = await exported(served);
    expect(parseLines(other)[0].embedder).toBe(`http/fake-model/${DIMS}`);
  });
});

describe("an import under the same embedder", () => {
  test("keeps the vectors: nothing pending right after, a vector search finds its entry at once", async () => {
    const { text, ids } = await exported(hashed);
    const copy = await imported(hashed, text);
    expect(copy.body.imported.embeddings).toBe(NOTES.length);
    const health = await indexHealth(hashed, copy.tenant_id);
    expect(health).toMatchObject({ vectors: NOTES.length, pending_vectors: 0 });
    const found = await search(hashed, copy.token, "ledger review Thursday");
    expect(found.body.pending_vectors).toBeUndefined();
    expect(found.body.results[0].entry.id).toBe(ids[0]);
    expect(found.body.results[0].scores.vector).toBeGreaterThan(0);
  });

  test("of an embeddings service embeds nothing again", async () => {
    const { text } = await exported(served);
    const asked = fake.texts.length;
    const copy = await imported(served, text);
    expect(await indexHealth(served, copy.tenant_id)).toMatchObject({
      vectors: NOTES.length,
      pending_vectors: 0,
    });
    expect(fake.texts.slice(asked).filter((t) => NOTES.includes(t))).toEqual([]);
  });
});

describe("an import under another embedder", () => {
  test("drops the export's vectors and queues every entry for the runtime's embedder", async () => {
    const { text, ids } = await exported(hashed);
    fake.setMode("hold", (t) => NOTES.includes(t));
    try {
      const copy = await imported(served, text);
      expect(copy.body.imported).toMatchObject({ entries: NOTES.length, embeddings: 0 });
      expect(await indexHealth(served, copy.tenant_id)).toMatchObject({
        vectors: 0,
        pending_vectors: NOTES.length,
      });
      // Found by its words meanwhile.
      const early = await search(served, copy.token, "ledger review");
      expect(early.body.results[0].entry.id).toBe(ids[0]);
      expect(early.body.pending_vectors).toBe(NOTES.length);
      fake.setMode("serve");
      const done = await backlogDrained(served, copy.tenant_id);
      expect(done.vectors).toBe(NOTES.length);
      const late = await search(served, copy.token, "ledger review");
      expect(late.body.results[0].scores.vector).toBeGreaterThan(0);
    } finally {
      fake.setMode("serve");
    }
  });
});

describe("an export of before the header's embedder", () => {
  test("still imports: vectors of the runtime's length are kept", async () => {
    const { text } = await exported(hashed);
    const [header, ...rest] = parseLines(text);
    const { embedder: _, ...older } = header;
    const copy = await imported(hashed, joinLines([older, ...rest]));
    expect(copy.body.imported.embeddings).toBe(NOTES.length);
    expect(await indexHealth(hashed, copy.tenant_id)).toMatchObject({
      vectors: NOTES.length,
      pending_vectors: 0,
    });
  });

  test("of other dimensions is no longer refused: its entries are embedded again", async () => {
    const { text } = await exported(hashed);
    const [header, ...rest] = parseLines(text);
    const { embedder: _, ...older } = header;
    const small = Buffer.from(new Float32Array([1, 0, 0, 0, 0, 0, 0, 0]).buffer).toString("base64");
    const lines = [
      { ...older, embedding_dims: 8 },
      ...rest.map((l) => (l.type === "embedding" ? { ...l, value: small } : l)),
    ];
    const copy = await imported(hashed, joinLines(lines));
    expect(copy.body.imported).toMatchObject({ entries: NOTES.length, embeddings: 0 });
    const done = await backlogDrained(hashed, copy.tenant_id);
    expect(done.vectors).toBe(NOTES.length);
  });

  test("a vector of another length than its header says is refused, naming its line", async () => {
    const { text } = await exported(hashed);
    const lines = parseLines(text);
    const at = lines.findIndex((l) => l.type === "embedding");
    lines[at] = { ...lines[at], value: Buffer.from(new Float32Array(8).buffer).toString("base64") };
    const t = await hashed.createTenant();
    const res = await hashed.call("POST", `/admin/tenants/${t.tenant_id}/import`, {
      token: hashed.adminToken,
      raw: joinLines(lines),
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      `line ${at + 1}: an embedding must be ${DIMS} float32 values, base64-encoded`,
    );
  });
});
