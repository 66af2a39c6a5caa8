import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { estimateTokens } from "../../src/search/controls/token-budget.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** The search controls of POST /memory/search (docs/embedding-and-search.md, "Search controls"). */

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;
let h: Harness;
/** The runtime's clock: recorded_at and the default valid_at / as_of are its readings. */
const clock = new ManualClock(Date.parse("2025-06-01T12:00:00.000Z"));
const iso = (ms: number) => new Date(ms).toISOString();

type Explain = {
  matched_terms: string[];
  relevance: number;
  recency?: number;
  redundancy?: number;
  tokens: number;
};
type Result = {
  entry: { id: string; content: string };
  score: number;
  scores: { vector: number; lexical: number };
  explain?: Explain;
};

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

async function tenant(): Promise<string> {
  return (await h.createTenant()).token;
}

async function write(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body });
  if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function search(token: string, body: Record<string, unknown>): Promise<Result[]> {
  const res = await h.json("POST", "/memory/search", { token, body });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results;
}

const ids = (results: Result[]) => results.map((r) => r.entry.id);

describe("recency", () => {
  let token: string;
  let fresh: string;
  let weekOld: string;
  beforeAll(async () => {
    token = await tenant();
    // The same words, so the same relevance; only valid_from differs.
    weekOld = await write(token, {
      content: "Kestrel budget review",
      valid_from: iso(clock.now() - 7 * DAY),
    });
    fresh = await write(token, { content: "Kestrel budget review", valid_from: iso(clock.now()) });
  });

  test("without it, two equal matches score the same", async () => {
    const [a, b] = await search(token, { query: "kestrel budget" });
    expect(a!.score).toBe(b!.score);
  });

  test("the newer of two equal matches ranks first; one half-life old halves the score", async () => {
    const results = await search(token, {
      query: "kestrel budget",
      recency: { half_life_days: 7 },
      explain: true,
    });
    expect(ids(results)).toEqual([fresh, weekOld]);
    const [newer, older] = results as [Result, Result];
    expect(newer.explain!.recency).toBe(1);
    expect(older.explain!.recency).toBe(0.5);
    expect(older.explain!.relevance).toBe(newer.explain!.relevance);
    expect(newer.score).toBe(newer.explain!.relevance);
    expect(older.score).toBeCloseTo(newer.explain!.relevance * 0.5, 4);
  });

  test("a weight keeps 1 − weight of the score however old; the age is taken from valid_at", async () => {
    const results = await search(token, {
      query: "kestrel budget",
      recency: { half_life_days: 7, weight: 0.4 },
      valid_at: iso(clock.now() + 7 * DAY),
      explain: true,
    });
    // From a week later, the fresh entry is one half-life old and the other two.
    expect(results.map((r) => r.explain!.recency)).toEqual([0.8, 0.7]);
  });

  test("on recorded_at, the age is from as_of: what was recorded earlier decays", async () => {
    const t = await tenant();
    const first = await write(t, { content: "Osprey nest count" });
    // Half an hour on the runtime's clock (tokens live an hour): two half-lives of 15 minutes.
    clock.advance(30 * MINUTE);
    const second = await write(t, { content: "Osprey nest count!" });
    const results = await search(t, {
      query: "osprey nest",
      recency: { half_life_days: (15 * MINUTE) / DAY, field: "recorded_at" },
      explain: true,
    });
    expect(ids(results)).toEqual([second, first]);
    expect(results.map((r) => r.explain!.recency)).toEqual([1, 0.25]);
  });
});

describe("diversity", () => {
  let token: string;
  let different: string;
  const paraphrases = [
    "Marta drinks coffee every morning",
    "Marta drinks coffee every single morning",
    "Every morning Marta drinks coffee",
    "Marta drinks her coffee every morning",
    "Marta always drinks coffee in the morning",
  ];
  beforeAll(async () => {
    token = await tenant();
    for (const content of paraphrases) await write(token, { content });
    different = await write(token, { content: "Marta roasts her own coffee beans at home on weekends" });
  });

  test("without it, the paraphrases fill the first three places", async () => {
    const top = await search(token, { query: "Marta coffee", limit: 3 });
    expect(ids(top)).not.toContain(different);
  });

  test("with it, the different fact enters the first three, and paraphrases below the first carry their redundancy", async () => {
    const top = await search(token, { query: "Marta coffee", limit: 3, diversity: 0.5, explain: true });
    expect(top).toHaveLength(3);
    expect(ids(top)).toContain(different);
    expect(top[0]!.explain!.redundancy).toBe(0);
    const repeats = top.slice(1).filter((r) => r.entry.id !== different);
    for (const r of repeats) expect(r.explain!.redundancy).toBeGreaterThan(0.5);
  });

  test("diversity 0 is the plain ranking", async () => {
    const plain = await search(token, { query: "Marta coffee", limit: 6 });
    const zero = await search(token, { query: "Marta coffee", limit: 6, diversity: 0 });
    expect(zero).toEqual(plain);
  });
});

describe("max_tokens, min_score and explain", () => {
  let token: string;
  // 40 characters each: 10 tokens by the estimate.
  const contents = [
    "Falcon launch window opens on the ninth.",
    "Falcon payload mass was checked by Ines.",
    "Falcon crew rehearsal moved to Thursday.",
  ];
  const written: string[] = [];
  beforeAll(async () => {
    token = await tenant();
    for (const content of contents) written.push(await write(token, { content, tags: ["falcon"] }));
    await write(token, { content: "Invoice dispute with Globex escalated to legal" });
    await write(token, { content: "Globex renewed their support contract" });
  });

  test("results until the budget would be passed, in rank order", async () => {
    const all = await search(token, { query: "falcon" });
    expect(all).toHaveLength(3);
    const two = await search(token, { query: "falcon", max_tokens: 25, explain: true });
    expect(ids(two)).toEqual(ids(all).slice(0, 2));
    expect(two.map((r) => r.explain!.tokens)).toEqual([10, 10]);
    expect(await search(token, { query: "falcon", max_tokens: 30 })).toHaveLength(3);
  });

  test("the first result is returned even when it alone passes the budget", async () => {
    const one = await search(token, { query: "falcon", max_tokens: 1 });
    expect(one).toHaveLength(1);
  });

  test("a filter-only search (no query) is budgeted too, newest first", async () => {
    const page = await search(token, { tags: ["falcon"], max_tokens: 20, explain: true });
    expect(ids(page)).toEqual([written[2]!, written[1]!]);
    expect(page[0]!.explain).toEqual({ matched_terms: [], relevance: 0, tokens: 10 });
  });

  test("min_score drops what scores below it", async () => {
    const all = await search(token, { query: "Globex invoice dispute" });
    expect(all.length).toBeGreaterThanOrEqual(2);
    const cut = (all[0]!.score + all[1]!.score) / 2;
    const kept = await search(token, { query: "Globex invoice dispute", min_score: cut });
    expect(ids(kept)).toEqual([all[0]!.entry.id]);
    expect(await search(token, { tags: ["falcon"], min_score: 0.01 })).toEqual([]);
  });

  test("explain names the query words each entry matched, its relevance and its size", async () => {
    const results = await search(token, { query: "When was the Globex invoice disputed?", explain: true });
    const dispute = results.find((r) => r.entry.content.startsWith("Invoice dispute"))!;
    const renewal = results.find((r) => r.entry.content.startsWith("Globex renewed"))!;
    expect(dispute.explain!.matched_terms).toEqual(["globex", "invoice", "disputed"]);
    expect(renewal.explain!.matched_terms).toEqual(["globex"]);
    for (const r of [dispute, renewal]) {
      expect(r.explain!.relevance).toBe(r.score);
      expect(r.explain!.tokens).toBe(estimateTokens(r.entry.content));
      expect(r.explain!.recency).toBeUndefined();
      expect(r.explain!.redundancy).toBeUndefined();
      expect(r.scores.lexical).toBeGreaterThan(0);
    }
    expect(dispute.score).toBeGreaterThan(renewal.score);
  });

  test("without explain, results carry no explain", async () => {
    const results = await search(token, { query: "falcon" });
    for (const r of results) expect(r.explain).toBeUndefined();
  });
});

describe("validation", () => {
  let token: string;
  beforeAll(async () => {
    token = await tenant();
  });

  const bad: Array<[string, Record<string, unknown>]> = [
    ["a negative half-life", { recency: { half_life_days: -1 } }],
    ["a zero half-life", { recency: { half_life_days: 0 } }],
    ["recency without a half-life", { recency: { field: "valid_from" } }],
    ["an unknown recency field", { recency: { half_life_days: 1, field: "expired_at" } }],
    ["a recency weight above 1", { recency: { half_life_days: 1, weight: 1.5 } }],
    ["diversity above 1", { diversity: 1.5 }],
    ["diversity below 0", { diversity: -0.1 }],
    ["max_tokens 0", { max_tokens: 0 }],
    ["a fractional max_tokens", { max_tokens: 2.5 }],
    ["min_score above 1", { min_score: 2 }],
    ["explain as a string", { explain: "yes" }],
  ];
  for (const [name, controls] of bad) {
    test(`${name} → 422`, async () => {
      const res = await h.call("POST", "/memory/search", { token, body: { query: "anything", ...controls } });
      await expectProblem(res, 422, "validation_failed");
    });
  }
});
