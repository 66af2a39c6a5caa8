import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** Time expressions in a query (docs/embedding-and-search.md, "Time in the query"), through POST /memory/search. */

let h: Harness;
const clock = new ManualClock(Date.parse("2024-05-15T12:00:00.000Z"));

type Explain = {
  relevance: number;
  time?: number;
  time_window?: { from: string | null; to: string | null; expression: string };
};
type Result = { entry: { id: string; content: string }; score: number; explain?: Explain };

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

async function write(token: string, body: Record<string, unknown>): Promise<string> {
  const res = await h.json("POST", "/memory/facts", { token, body });
  if (res.status !== 201) throw new Error(`write: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function search(token: string, body: Record<string, unknown>): Promise<Result[]> {
  const res = await h.json("POST", "/memory/search", { token, body: { explain: true, ...body } });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.results;
}

const ids = (results: Result[]) => results.map((r) => r.entry.id);

describe("a window named in the query", () => {
  let token: string;
  let inMay: string;
  let later: string;
  let saysAugust: string;
  let writtenInAugust: string;
  beforeAll(async () => {
    token = (await h.createTenant()).token;
    // The same words: only valid time tells them apart.
    later = await write(token, { content: "Zane adopted a rabbit", valid_from: "2023-02-01T10:00:00Z" });
    inMay = await write(token, { content: "Zane adopted a rabbit!", valid_from: "2022-05-10T10:00:00Z" });
    // Written in September about August, against one merely written in August.
    saysAugust = await write(token, {
      content: "Aisha: Last month I flew to Lisbon for 8 days.",
      valid_from: "2021-09-20T09:35:00Z",
    });
    writtenInAugust = await write(token, {
      content: "Aisha: I would love to fly to Lisbon one day.",
      valid_from: "2021-08-12T09:35:00Z",
    });
  });

  test("an entry valid in the window ranks first; explain shows the window and the factor", async () => {
    const results = await search(token, { query: "What did Zane adopt in May 2022?" });
    expect(ids(results).slice(0, 2)).toEqual([inMay, later]);
    const [first, second] = results;
    expect(first!.explain!.time_window).toEqual({
      from: "2022-05-01T00:00:00.000Z",
      to: "2022-06-01T00:00:00.000Z",
      expression: "in May 2022",
    });
    expect(first!.explain!.time).toBeGreaterThan(second!.explain!.time!);
    // The factor is in the relevance: lower for the entry far after the window.
    expect(second!.explain!.time!).toBeLessThan(0.3);
  });

  test("an entry whose own words name a time in the window beats one merely written in it", async () => {
    const results = await search(token, { query: "Where did Aisha fly to in August 2021?" });
    expect(ids(results).slice(0, 2)).toEqual([saysAugust, writtenInAugust]);
  });

  test("relative expressions are read against valid_at", async () => {
    const results = await search(token, {
      query: "What did Zane adopt last May?",
      valid_at: "2023-03-01T00:00:00Z",
    });
    expect(results[0]!.explain!.time_window).toMatchObject({
      from: "2022-05-01T00:00:00.000Z",
      expression: "last May",
    });
    expect(results[0]!.entry.id).toBe(inMay);
  });

  test("`time_expressions: false` reads the words as words: no window", async () => {
    const results = await search(token, {
      query: "What did Zane adopt in May 2022?",
      time_expressions: false,
    });
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect(r.explain!.time_window).toBeUndefined();
  });

  test("an unparseable expression is simply words", async () => {
    const query = "What did Zane adopt two weeks before the launch?";
    const results = await search(token, { query });
    for (const r of results) expect(r.explain!.time_window).toBeUndefined();
    expect(ids(results)).toEqual(ids(await search(token, { query, time_expressions: false })));
  });

  test("a time_expressions that is not a boolean is a 422 problem", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      body: { query: "x", time_expressions: "yes" },
    });
    await expectProblem(res, 422, "validation_failed");
  });
});

describe("now and the past: a superseded entry and its replacement", () => {
  let token: string;
  let old: string;
  let current: string;
  beforeAll(async () => {
    token = (await h.createTenant()).token;
    old = await write(token, { content: "Acme is on the Basic plan", valid_from: "2022-01-10T00:00:00Z" });
    const res = await h.json("POST", "/memory/facts", {
      token,
      body: { content: "Acme moved to the Pro plan", valid_from: "2023-03-01T00:00:00Z", supersedes: old },
    });
    current = res.body.id;
  });

  test("a question about now finds the replacement, never the superseded entry above it", async () => {
    for (const query of [
      "Which plan is Acme on now?",
      "What is Acme's current plan?",
      "Is Acme still on the Basic plan?",
    ]) {
      const results = await search(token, { query });
      expect(ids(results)).toContain(current);
      expect(ids(results)).not.toContain(old);
    }
  });

  test("without a time in the query, the default view holds only the replacement", async () => {
    expect(ids(await search(token, { query: "Acme Basic plan" }))).toEqual([current]);
  });

  test("a question about the past sees the superseded entry, first when its window names it", async () => {
    const in2022 = await search(token, { query: "Which plan was Acme on in 2022?" });
    expect(ids(in2022).slice(0, 2)).toEqual([old, current]);
    expect(in2022[0]!.explain!.time!).toBeGreaterThan(in2022[1]!.explain!.time!);
    const usedTo = await search(token, { query: "Which plan did Acme use to be on?" });
    expect(ids(usedTo)).toContain(old);
  });

  test("with time expressions off, the past question sees only what is valid now", async () => {
    const results = await search(token, {
      query: "Which plan was Acme on in 2022?",
      time_expressions: false,
    });
    expect(ids(results)).toEqual([current]);
  });
});
