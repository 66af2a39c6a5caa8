/**
 * The local embedder wired into a runtime, black-box: notes written and searched over the HTTP
 * API find each other by meaning, with no word in common (the hash embedder cannot do that).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { backlogDrained } from "../helpers/embedding.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDER: "local" } });
});
afterAll(() => h.close());

const tenants = new Map<string, string>();

/** A token for a tenant of the test's own. */
async function tenantToken(): Promise<string> {
  const t = await h.createTenant();
  tenants.set(t.token, t.tenant_id);
  return t.token;
}

/** The local model embeds entries in the background, after their write is answered. */
const embedded = (token: string) => backlogDrained(h, tenants.get(token)!);

async function note(token: string, content: string): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body: { content } });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe("search with MEMORY_RUNTIME_EMBEDDER=local", () => {
  test("stored vectors have 512 dims and unit length", async () => {
    const token = await tenantToken();
    const id = await note(token, "The office wifi password changes every Monday");
    await embedded(token);
    const read = await h.json("GET", `/memory/facts/${id}?include=embedding`, { token });
    expect(read.body.embedding).toHaveLength(512);
    const norm = Math.sqrt(read.body.embedding.reduce((s: number, x: number) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 4);
  });

  test("a question finds the note that answers it first, sharing no word with it", async () => {
    const token = await tenantToken();
    await note(token, "Lunch is served in the canteen from twelve to two");
    const vacation = await note(token, "Staff get twenty-five paid days off each year");
    await note(token, "Broken computers are swapped at the IT desk on floor three");
    await embedded(token);
    const res = await h.json("POST", "/memory/search", { token, body: { query: "how much holiday leave?" } });
    expect(res.status).toBe(200);
    expect(res.body.results[0].entry.id).toBe(vacation);
    expect(res.body.results[0].scores.lexical).toBe(0);
  });
});
