/**
 * Relevance through `POST /memory/search`, black-box, with the hash embedder (the harness's): the
 * BM25 analyzer matches other forms of a word, question words do not pull chatter up, and hash's
 * small share of the score leaves an exact lexical match first.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
let token: string;
const ids: Record<string, string> = {};

interface Result {
  entry: { id: string };
  score: number;
  scores: { vector: number; lexical: number };
}

beforeAll(async () => {
  h = await startHarness({ env: { MEMORY_RUNTIME_EMBEDDER: "hash" } });
  token = (await h.createTenant()).token;
  const notes = {
    shoe: "I ran in my new shoe this morning",
    weather: "What a lovely morning it was for a walk",
    chatter: "What did you think about the team and the plan for the day?",
    pricing: "Pricing of the enterprise plan decided: 40 dollars a seat",
    invoice: "Invoice INV-20931 was sent to Initech",
    invoices: "Invoices were sent to Initech, Globex and Acme for the month",
    paid: "Soren paid 800 dollars for his guitar",
    lessons: "Guitar lessons start on Monday",
  };
  for (const [key, content] of Object.entries(notes)) {
    const res = await h.json("POST", "/memory/facts", { token, body: { content } });
    expect(res.status).toBe(201);
    ids[key] = res.body.id;
  }
});
afterAll(() => h.close());

async function search(query: string, controls: Record<string, unknown> = {}): Promise<Result[]> {
  const res = await h.json("POST", "/memory/search", { token, body: { query, ...controls } });
  expect(res.status).toBe(200);
  return res.body.results;
}

describe("search relevance (hash embedder)", () => {
  test("a stemmed match: 'running shoes' finds the note that ran in a new shoe", async () => {
    const [top] = await search("running shoes");
    expect(top!.entry.id).toBe(ids.shoe!);
    expect(top!.scores.lexical).toBe(1);
  });

  test("an irregular past form meets its base: 'pay' finds 'paid'", async () => {
    // Both notes say "guitar"; only the past form of "pay" tells them apart.
    const [top] = await search("pay guitar");
    expect(top!.entry.id).toBe(ids.paid!);
  });

  test("question words do not rank chatter that repeats them above the answer", async () => {
    // The chatter repeats the question's function words ("what did", "about the", "the team"),
    // which the hashing vector rewards; the answer shares the content words, one in another
    // form (decided / decide).
    const results = await search("What did the team decide about the pricing of the plan?");
    expect(results[0]!.entry.id).toBe(ids.pricing!);
  });

  test("an exact lexical match ranks first, its score mostly BM25", async () => {
    // The fusion alone: INV-20931 is an entity too, whose hop would add its boost (docs/entities.md).
    const results = await search("invoice INV-20931", { entities: false });
    expect(results[0]!.entry.id).toBe(ids.invoice!);
    expect(results[0]!.scores.lexical).toBe(1);
    // hash weighs a tenth: the fused score is within 0.1 of the lexical part.
    for (const r of results) expect(Math.abs(r.score - r.scores.lexical)).toBeLessThanOrEqual(0.1 + 1e-4);
  });
});
