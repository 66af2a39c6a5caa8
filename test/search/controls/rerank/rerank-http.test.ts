/**
 * The `http` re-ranker (issue 31, item 5), black-box through POST /memory/search and MCP's
 * memory_search, against a local re-ranking service that holds each request until the test answers
 * it. A good answer re-orders the top fused hits; a timeout (the budget, on the test's clock), a
 * 500, a 429, a body that is not JSON or one that is not one score per document leaves the fused
 * order, answers 200, says why in `explain.rerank.fallback` and is counted in the metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../../../src/runtime/clock.ts";
import { HttpReranker } from "../../../../src/search/controls/rerank/http-reranker.ts";
import { RerankFailed } from "../../../../src/search/controls/rerank/reranker.ts";
import { type FakeReranker, type RerankRequest, startFakeReranker } from "../../../fakes/rerank-service.ts";
import { type Harness, startHarness } from "../../../helpers/harness.ts";
import { scrape } from "../../../telemetry/scrape.ts";

const KEY = "rk-live-0123456789abcdef";
const TOP = 5;
const BUDGET_MS = 250;
const QUERY = "heron survey nests";

let h: Harness;
let fake: FakeReranker;
let token: string;
const clock = new ManualClock();

// biome-ignore lint/suspicious/noExplicitAny: tests read answers field by field
type Json = any;

beforeAll(async () => {
  fake = startFakeReranker();
  h = await startHarness({
    clock,
    env: {
      MEMORY_RUNTIME_RERANKER: "http",
      MEMORY_RUNTIME_RERANK_URL: `${fake.url}/v1`,
      MEMORY_RUNTIME_RERANK_MODEL: "rerank-test-1",
      MEMORY_RUNTIME_RERANK_KEY: KEY,
      MEMORY_RUNTIME_RERANK_TOP: String(TOP),
      MEMORY_RUNTIME_RERANK_BUDGET_MS: String(BUDGET_MS),
    },
  });
  ({ token } = await h.createTenant());
  const contents = [
    "Heron survey counted 40 nests on the east bank",
    "The heron survey at the lake counted nests again",
    "Survey of herons: nests were fewer this year",
    "A heron flew over the survey team",
    "Nests of the herons were counted in the survey of 2024",
    "Heron survey planned for next spring",
    "Heron",
  ];
  const { status } = await h.json("POST", "/memory/facts/batch", {
    token,
    body: { entries: contents.map((content) => ({ content })) },
  });
  expect(status).toBe(201);
});
afterAll(async () => {
  await h.close();
  fake.stop();
});

async function search(body: Record<string, unknown>): Promise<{ status: number; body: Json }> {
  return h.json("POST", "/memory/search", {
    token,
    body: { query: QUERY, limit: 4, explain: true, ...body },
  });
}

/** The fused order: the same search with the re-ranker skipped (the service is not asked). */
async function fusedOrder(): Promise<string[]> {
  const asked = fake.requests;
  const { status, body } = await search({ rerank: false, limit: TOP });
  expect(status).toBe(200);
  expect(fake.requests).toBe(asked);
  for (const r of body.results) expect(r.explain.rerank).toBeUndefined();
  return body.results.map((r: Json) => r.entry.id);
}

/** Starts a search, waits for its request at the service, answers it as `answer` says. */
async function searchAnswered(
  answer: (request: RerankRequest) => void,
  body: Record<string, unknown> = {},
): Promise<{ status: number; body: Json; request: RerankRequest }> {
  const searching = search(body);
  const request = await fake.next();
  answer(request);
  return { ...(await searching), request };
}

describe("an http re-ranker that answers", () => {
  test("is sent the query, the top candidates, the model, top_n and the key; its scores set the order", async () => {
    const fused = await fusedOrder();
    expect(fused.length).toBe(TOP);
    const { status, body, request } = await searchAnswered((r) =>
      // The reverse of the fused order, in Cohere's and Jina's shape.
      r.answer(200, {
        results: r.body.documents.map((_: string, index: number) => ({ index, relevance_score: index / 10 })),
      }),
    );
    expect(request.path).toBe("/v1/rerank");
    expect(request.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({ model: "rerank-test-1", query: QUERY, top_n: TOP });
    expect(request.body.documents).toHaveLength(TOP);
    expect(status).toBe(200);
    const ids = body.results.map((r: Json) => r.entry.id);
    expect(ids).toEqual([...fused].reverse().slice(0, 4));
    expect(body.results[0].explain.rerank).toEqual({ by: "http", score: 0.4, rank_before: TOP });
    // Scores stay in descending order: each result has the score of the place it moved to.
    const scores = body.results.map((r: Json) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  test("TEI's answer, an array of {index, score}, is read as well", async () => {
    const fused = await fusedOrder();
    const { body } = await searchAnswered((r) =>
      r.answer(
        200,
        r.body.documents.map((_: string, index: number) => ({ index, score: index === 2 ? 5 : -index })),
      ),
    );
    expect(body.results[0].entry.id).toBe(fused[2]);
    expect(body.results[0].explain.rerank).toEqual({ by: "http", score: 5, rank_before: 3 });
  });

  test("never changes which entries pass the filters: a tag filter's results are its own, re-ordered", async () => {
    const tagged = ["Heron survey nests by the river", "River heron nests, a survey"];
    const { status } = await h.json("POST", "/memory/facts/batch", {
      token,
      body: { entries: tagged.map((content) => ({ content, tags: ["river"] })) },
    });
    expect(status).toBe(201);
    const { body, request } = await searchAnswered(
      (r) =>
        r.answer(200, {
          results: [
            { index: 0, relevance_score: 0 },
            { index: 1, relevance_score: 1 },
          ],
        }),
      { tags: ["river"] },
    );
    expect(request.body.documents).toHaveLength(2);
    expect(body.results.map((r: Json) => r.entry.content)).toEqual([...request.body.documents].reverse());
  });

  test("the page controls choose after it: diversity and max_tokens read the re-ranked order", async () => {
    const { status, body, request } = await searchAnswered(
      (r) =>
        r.answer(200, {
          results: r.body.documents.map((_: string, index: number) => ({ index, relevance_score: index })),
        }),
      { diversity: 0.3, max_tokens: 25 },
    );
    expect(status).toBe(200);
    // The service's best (the last candidate it was sent) comes first; the budget keeps a prefix.
    expect(body.results[0].entry.content).toBe(request.body.documents.at(-1));
    expect(body.results[0].explain.rerank.rank_before).toBe(request.body.documents.length);
    const tokens = body.results.reduce((sum: number, r: Json) => sum + r.explain.tokens, 0);
    expect(body.results.length === 1 || tokens <= 25).toBe(true);
  });

  test("one candidate: nothing to order, the service is not asked", async () => {
    const written = await h.json("POST", "/memory/facts", {
      token,
      body: { content: "Heron survey nests, the only one here", tags: ["lonely"] },
    });
    expect(written.status).toBe(201);
    const asked = fake.requests;
    const { status, body } = await search({ tags: ["lonely"] });
    expect(status).toBe(200);
    expect(body.results.map((r: Json) => r.entry.id)).toEqual([written.body.id]);
    expect(fake.requests).toBe(asked);
  });
});

describe("an http re-ranker that fails falls back to the fused order, 200", () => {
  const cases: Array<[string, (r: RerankRequest) => void, string]> = [
    ["a 500 (echoing the key)", (r) => r.answer(500, { error: `bad key ${KEY}` }), "http_error"],
    ["a 429", (r) => r.answer(429, { error: "slow down" }), "rate_limited"],
    ["a body that is not JSON", (r) => r.answer(200, "<html>gateway</html>"), "invalid_answer"],
    [
      "fewer scores than documents",
      (r) => r.answer(200, { results: [{ index: 0, relevance_score: 0.9 }] }),
      "invalid_answer",
    ],
    [
      "an index out of range",
      (r) =>
        r.answer(200, {
          results: r.body.documents.map((_: string, i: number) => ({ index: i + 1, relevance_score: 1 })),
        }),
      "invalid_answer",
    ],
  ];
  for (const [name, answer, reason] of cases)
    test(`${name}: explain says ${reason}`, async () => {
      const fused = await fusedOrder();
      const { status, body } = await searchAnswered(answer);
      expect(status).toBe(200);
      expect(body.results.map((r: Json) => r.entry.id)).toEqual(fused.slice(0, 4));
      body.results.forEach((r: Json, i: number) => {
        expect(r.explain.rerank).toEqual({ by: "http", rank_before: i + 1, fallback: reason });
      });
      expect(JSON.stringify(body)).not.toContain(KEY);
    });

  test("a service that does not answer within the budget: a timeout, on the runtime's clock", async () => {
    const fused = await fusedOrder();
    const searching = search({});
    const held = await fake.next();
    clock.advance(BUDGET_MS);
    const { status, body } = await searching;
    held.answer(200, { results: [] });
    expect(status).toBe(200);
    expect(body.results.map((r: Json) => r.entry.id)).toEqual(fused.slice(0, 4));
    expect(body.results[0].explain.rerank).toEqual({ by: "http", rank_before: 1, fallback: "timeout" });
  });

  test("every outcome is counted: memory_runtime_rerank_total by re-ranker and outcome", async () => {
    const scraped = await scrape(h);
    const count = (outcome: string) =>
      scraped.value("memory_runtime_rerank_total", { reranker: "http", outcome });
    expect(count("ok")).toBeGreaterThanOrEqual(2);
    expect(count("http_error")).toBe(1);
    expect(count("rate_limited")).toBe(1);
    expect(count("invalid_answer")).toBe(3);
    expect(count("timeout")).toBe(1);
  });
});

describe("MCP's memory_search", () => {
  test("goes through the same re-ranking stage, and takes rerank: false", async () => {
    const call = (args: Record<string, unknown>) =>
      h.call("POST", "/mcp", {
        token,
        headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
        raw: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "memory_search", arguments: { query: QUERY, limit: 3, explain: true, ...args } },
        }),
      });
    const resultOf = async (res: Response) => {
      expect(res.status).toBe(200);
      const reply = (await res.json()) as Json;
      expect(reply.result.isError ?? false).toBe(false);
      return reply.result.structuredContent;
    };
    const asked = fake.requests;
    const plain = await resultOf(await call({ rerank: false }));
    expect(fake.requests).toBe(asked);
    const calling = call({});
    const request = await fake.next();
    request.answer(200, {
      results: request.body.documents.map((_: string, index: number) => ({ index, relevance_score: -index })),
    });
    const ranked = await resultOf(await calling);
    expect(ranked.results.map((r: Json) => r.entry.id)).toEqual(plain.results.map((r: Json) => r.entry.id));
    expect(ranked.results[1].explain.rerank).toEqual({ by: "http", score: -1, rank_before: 2 });
  });
});

describe("the http re-ranker's failures, as the log sees them", () => {
  const reranker = (url: string) =>
    new HttpReranker({ url, apiKey: KEY, api: "cohere", top: TOP, budgetMs: BUDGET_MS });
  const failure = async (promise: Promise<unknown>): Promise<RerankFailed> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RerankFailed);
    return error as RerankFailed;
  };

  test("a key the service echoes is redacted from the message", async () => {
    const scoring = reranker(fake.url).score(
      QUERY,
      [{ id: "a", text: "heron" }],
      new AbortController().signal,
    );
    (await fake.next()).answer(401, { error: `unknown key ${KEY}` });
    const error = await failure(scoring);
    expect(error.reason).toBe("http_error");
    expect(error.message).toContain("answered HTTP 401");
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain(KEY);
  });

  test("a service that is not there is unreachable, not a timeout", async () => {
    const gone = startFakeReranker();
    gone.stop();
    const error = await failure(
      reranker(gone.url).score(QUERY, [{ id: "a", text: "heron" }], new AbortController().signal),
    );
    expect(error.reason).toBe("unreachable");
    expect(error.message).not.toContain(KEY);
  });

  test("TEI's request shape: texts and raw_scores, no model", async () => {
    const tei = new HttpReranker({ url: fake.url, api: "tei", model: "m", top: TOP, budgetMs: BUDGET_MS });
    const scoring = tei.score(
      QUERY,
      [
        { id: "a", text: "heron" },
        { id: "b", text: "survey" },
      ],
      new AbortController().signal,
    );
    const request = await fake.next();
    expect(request.body).toEqual({ query: QUERY, texts: ["heron", "survey"], raw_scores: false });
    expect(request.authorization).toBeNull();
    request.answer(200, [
      { index: 1, score: 0.2 },
      { index: 0, score: 0.7 },
    ]);
    expect(await scoring).toEqual([0.7, 0.2]);
  });
});
