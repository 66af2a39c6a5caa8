/**
 * The static embedder wired into a runtime, black-box over the HTTP API: an entry has its vector
 * as soon as its write is answered (no background backlog), and a question finds its note by
 * meaning with no word in common.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { indexHealth } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDER: "static" } });
});
afterAll(() => h.close());

async function note(token: string, content: string): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe("search with MEMORY_RUNTIME_EMBEDDER=static", () => {
  test("a write is answered with its 512-d unit vector already stored, nothing pending", async () => {
    const { token, tenant_id } = await h.createTenant();
    const id = await note(token, "The office wifi password changes every Monday");
    const health = await indexHealth(h, tenant_id);
    expect(health.pending_vectors).toBe(0);
    expect(health.vectors).toBe(1);
    const read = await h.json("GET", `/memory/facts/${id}?include=embedding`, { token });
    expect(read.body.embedding).toHaveLength(512);
    const norm = Math.sqrt(read.body.embedding.reduce((s: number, x: number) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 4);
  });

  test("a question finds the note that answers it first, sharing no word with it", async () => {
    const { token } = await h.createTenant();
    await note(token, "Lunch is served in the canteen from twelve to two");
    const pet = await note(token, "Olga adopted a kitten from the shelter in May");
    await note(token, "Broken computers are swapped at the IT desk on floor three");
    const res = await h.json("POST", "/memory/search", {
      token,
      body: { query: "what animal does she own?" },
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0].entry.id).toBe(pet);
    expect(res.body.results[0].scores.lexical).toBe(0);
  });
});
