/**
 * The built-in re-ranker (issue 31, item 5), black-box through POST /memory/search: it re-orders
 * the top fused hits by how much of the query each says, never which entries are found; `rerank: false` skips it; `explain` shows it. Its configuration is refused
 * at start when wrong.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../../../src/config/config.ts";
import { answerShape } from "../../../../src/search/controls/rerank/answer-shape.ts";
import { queryWords } from "../../../../src/search/lexical/matched-terms.ts";
import { type Harness, startHarness, TEST_SECRET } from "../../../helpers/harness.ts";

let h: Harness;
let token: string;

// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
type Json = any;

const QUERY = "what did Soren pay for the guitar lessons";

beforeAll(async () => {
  h = await startHarness({ env: { MEMORY_RUNTIME_RERANKER: "builtin", MEMORY_RUNTIME_RERANK_TOP: "10" } });
  ({ token } = await h.createTenant());
  const contents = [
    // The rarer words again and again, the others not at all: BM25 ranks it first, coverage does not.
    "Ines: Guitar lessons! Guitar lessons! Guitar lessons, at last.",
    "Soren: I paid 300 for the guitar lessons with Ines.",
    "Rhea: I paid the rent.",
    "Zane: I paid for lunch.",
    "Ines: I paid the bill.",
    "Rhea: Soren paid me back.",
  ];
  const { status } = await h.json("POST", "/memory/facts/batch", {
    token,
    body: { entries: contents.map((content, i) => ({ content, tags: i === 3 ? ["lunch"] : ["music"] })) },
  });
  expect(status).toBe(201);
});
afterAll(() => h.close());

async function search(body: Record<string, unknown>): Promise<Json[]> {
  const { status, body: answer } = await h.json("POST", "/memory/search", {
    token,
    body: { query: QUERY, limit: 10, explain: true, ...body },
  });
  expect(status).toBe(200);
  return answer.results;
}

describe("the builtin re-ranker", () => {
  test("puts the entry that says the whole question first, and explains every place", async () => {
    const plain = await search({ rerank: false });
    const ranked = await search({});
    expect(plain[0].entry.content).toBe("Ines: Guitar lessons! Guitar lessons! Guitar lessons, at last.");
    expect(ranked[0].entry.content).toBe("Soren: I paid 300 for the guitar lessons with Ines.");
    expect(ranked[0].explain.rerank.rank_before).toBe(2);
    ranked.forEach((r: Json) => {
      expect(r.explain.rerank.by).toBe("builtin");
      expect(r.explain.rerank.rank_before).toBe(plain.findIndex((p: Json) => p.entry.id === r.entry.id) + 1);
      expect(typeof r.explain.rerank.score).toBe("number");
    });
    const scores = ranked.map((r: Json) => r.explain.rerank.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const r of plain) expect(r.explain.rerank).toBeUndefined();
  });

  test("finds exactly the entries the plain search finds, whatever the filters", async () => {
    for (const filter of [{}, { tags: ["music"] }, { tags: ["lunch"] }, { categories: ["decision"] }]) {
      const plain = await search({ ...filter, rerank: false });
      const ranked = await search(filter);
      const ids = (results: Json[]) => results.map((r: Json) => r.entry.id).sort();
      expect(ids(ranked)).toEqual(ids(plain));
    }
  });

  test("leaves a search without text as it is: newest first, not re-ranked", async () => {
    const { body } = await h.json("POST", "/memory/search", {
      token,
      body: { tags: ["music"], explain: true },
    });
    expect(body.results.length).toBe(5);
    for (const r of body.results) expect(r.explain.rerank).toBeUndefined();
  });

  test("the answer's shape: a quantity for how much, a time for when, none for other questions", () => {
    const quantity = answerShape("How much did Soren pay for the guitar?")!;
    expect(quantity("Soren: I paid 300 for it.")).toBe(true);
    expect(quantity("Zane: A guitar, wow!")).toBe(false);
    const when = answerShape("When did Rhea move to Lisbon?")!;
    expect(when("Rhea: We moved last week.")).toBe(true);
    expect(when("Zane: Lisbon! I love it.")).toBe(false);
    expect(answerShape("What do we know about Acme?")).toBeUndefined();
  });

  test("coverage counts the query's words as BM25 searches them: stemmed, stop words left out", () => {
    expect(queryWords(QUERY)).toEqual(["soren", "pay", "guitar", "lessons"]);
    expect(queryWords("The Who")).toEqual(["the", "who"]);
  });
});

describe("the re-ranker's configuration", () => {
  const config = (env: Record<string, string>) => () =>
    loadConfig({ MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET, ...env });

  test("is off by default, with a top of 30 and a budget of 300 ms", () => {
    expect(config({})().reranker).toMatchObject({ kind: undefined, top: 30, budgetMs: 300, api: "cohere" });
  });

  test("refuses what it cannot run, naming the variable", () => {
    for (const [env, message] of [
      [{ MEMORY_RUNTIME_RERANKER: "cohere" }, "MEMORY_RUNTIME_RERANKER must be one of off, builtin, http"],
      [{ MEMORY_RUNTIME_RERANKER: "http" }, "MEMORY_RUNTIME_RERANKER=http needs MEMORY_RUNTIME_RERANK_URL"],
      [{ MEMORY_RUNTIME_RERANK_URL: "ftp://reranker" }, "MEMORY_RUNTIME_RERANK_URL must be an http"],
      [{ MEMORY_RUNTIME_RERANK_TOP: "1" }, "MEMORY_RUNTIME_RERANK_TOP must be an integer between 2 and 200"],
      [
        { MEMORY_RUNTIME_RERANK_BUDGET_MS: "0" },
        "MEMORY_RUNTIME_RERANK_BUDGET_MS must be an integer between 1",
      ],
      [{ MEMORY_RUNTIME_RERANK_API: "openai" }, "MEMORY_RUNTIME_RERANK_API must be one of cohere, tei"],
    ] as const) {
      expect(config(env)).toThrow(ConfigError);
      expect(config(env)).toThrow(message);
    }
  });

  test("never shows the key in a refusal", () => {
    const env = { MEMORY_RUNTIME_RERANK_KEY: "rk-secret", MEMORY_RUNTIME_RERANK_URL: "reranker.local" };
    expect(config(env)).toThrow("MEMORY_RUNTIME_RERANK_URL must be an http");
    try {
      config(env)();
    } catch (error) {
      expect(String(error)).not.toContain("rk-secret");
    }
  });
});
