/**
 * `POST /memory/context` (docs/context-pack.md), black-box through app.handle: the count is the
 * tokenizer's own, within the budget, and the budget is spent; entries grouped by category, best
 * first; `truncated`, the empty answer, scopes and permissions as search's, and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { tokenWithRole } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = any;

let h: Harness;
let tenant: string;
let owner: string;

const CUSTOMERS = ["Ada", "Bob", "Chen", "Dana", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jun"];
const CATEGORY_PATHS = ["facts", "decisions", "workflows", "exceptions"] as const;

/** 120 invoice entries over four categories, of lengths from one line to a paragraph. */
function invoiceEntry(i: number): { path: string; content: string } {
  const who = CUSTOMERS[i % CUSTOMERS.length];
  const detail = " The customer asked for the reminder to go by e-mail, copying accounts payable.".repeat(
    i % 4,
  );
  return {
    path: CATEGORY_PATHS[i % CATEGORY_PATHS.length]!,
    content: `Invoice INV-${1000 + i} for ${who} is due on day ${(i % 28) + 1}.${detail}`,
  };
}

async function pack(body: Json, token = owner): Promise<Json> {
  const { status, body: answer } = await h.json("POST", "/memory/context", { token, body });
  expect(status).toBe(200);
  return answer;
}

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenant, token: owner } = await h.createTenant());
  for (let i = 0; i < 120; i++) {
    const { path, content } = invoiceEntry(i);
    const res = await h.call("POST", `/memory/${path}`, {
      token: owner,
      body: { content, tags: ["invoice"] },
    });
    expect(res.status).toBe(201);
  }
  for (const [content, subject] of [
    ["Ada's renewal is on the enterprise plan", "ada"],
    ["Bob's renewal is on the starter plan", "bob"],
  ] as const) {
    const res = await h.call("POST", "/memory/facts", {
      token: owner,
      body: { content, subject, tags: ["renewal"] },
    });
    expect(res.status).toBe(201);
  }
});
afterAll(() => h.close());

describe("the budget", () => {
  for (const budget of [50, 500, 5000]) {
    test(`at ${budget} tokens: tokens is the tokenizer's own count of text, within the budget`, async () => {
      const answer = await pack({ query: "invoice due for the customer", budget_tokens: budget });
      expect(answer.tokens).toBe(countTokens(answer.text));
      expect(answer.tokens).toBeLessThanOrEqual(budget);
      expect(answer.encoding).toBe("o200k_base");
      expect(answer.budget_tokens).toBe(budget);
      // At least one entry, its label holding id, validity, trust and origin (in the tight frame at 50).
      expect(answer.entries.length).toBeGreaterThanOrEqual(1);
      const best = answer.entries[0];
      const label = budget === 50 ? `[${best.id}] ` : `[1] ${best.id} `;
      const line = answer.text.split("\n").find((l: string) => l.startsWith(label));
      expect(line).toMatch(/ \d{4}-\d\d-\d\d(T\d\d:\d\dZ)?→open operator operator$/);
      expect(best.origin).toMatchObject({ kind: "operator" });
      // 120 entries match: the budget cannot hold them all.
      expect(answer.truncated).toBe(true);
      // Spent, not only trimmed to: less than one entry's block is left over.
      const largestBlock = Math.max(0, ...answer.entries.map((e: Json) => e.tokens));
      expect(budget - answer.tokens).toBeLessThan(Math.max(largestBlock, 40) + 5);
      console.log(
        `context pack fill at ${budget}: ${(answer.tokens / budget).toFixed(3)} (${answer.entries.length} entries)`,
      );
    });
  }

  test("a budget past one page of results searches deeper", async () => {
    const answer = await pack({ query: "invoice due for the customer", budget_tokens: 5000 });
    expect(answer.considered).toBe(100);
    expect(answer.entries.length).toBeGreaterThan(10);
  });

  test("every entry's block is in the text once, labelled, its content quoted; no score in the text", async () => {
    const answer = await pack({ query: "invoice due for the customer", budget_tokens: 800 });
    const search = await h.json("POST", "/memory/search", {
      token: owner,
      body: { query: "invoice due for the customer", limit: 100 },
    });
    const byId = new Map(search.body.results.map((r: Json) => [r.entry.id, r.entry]));
    for (const [i, e] of answer.entries.entries()) {
      const entry = byId.get(e.id) as Json;
      const label = answer.text.split("\n").find((line: string) => line.startsWith(`[${i + 1}] `));
      expect(label).toStartWith(`[${i + 1}] ${entry.id} `);
      expect(label).toEndWith(`→open ${entry.trust} operator`);
      expect(e).toMatchObject({ origin: entry.origin, valid_from: entry.valid_from, valid_to: null });
      expect(answer.text).toContain(`    quoted: ${JSON.stringify(entry.content)}`);
      expect(answer.text.split(entry.id)).toHaveLength(2);
    }
    for (const e of answer.entries)
      if (String(e.score).length > 4) expect(answer.text).not.toContain(String(e.score));
    expect(answer.text).not.toContain("score");
  });
});

describe("order and grouping", () => {
  test("entries best first, a subsequence of the search's ranking; sections in order of their best entry", async () => {
    const query = "invoice for Ada";
    const answer = await pack({ query, budget_tokens: 1500 });
    const search = await h.json("POST", "/memory/search", { token: owner, body: { query, limit: 100 } });
    const ranked = search.body.results.map((r: Json) => r.entry.id);
    const positions = answer.entries.map((e: Json) => ranked.indexOf(e.id));
    expect(positions.every((p: number) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const firstSeen = [...new Set(answer.entries.map((e: Json) => e.category))];
    const headings = answer.text.split("\n").filter((l: string) => l.startsWith("## "));
    expect(headings).toEqual(firstSeen.map((c) => `## ${c}`));
    // Within a section, numbers rise: blocks by rank.
    for (const section of answer.text.split("\n## ").slice(1)) {
      const numbers = [...section.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    }
  });
});

describe("what the pack holds", () => {
  test("all of few matches, not truncated", async () => {
    const answer = await pack({ query: "renewal plan", tags: ["renewal"], budget_tokens: 2000 });
    expect(answer.entries).toHaveLength(2);
    expect(answer.truncated).toBe(false);
    expect(answer.text).toStartWith("Recalled memory, best first, grouped by category.");
  });

  test("nothing matching: an explicit empty answer", async () => {
    const answer = await pack({ query: "renewal", tags: ["no-such-tag"], budget_tokens: 500 });
    expect(answer).toMatchObject({ entries: [], truncated: false, considered: 0 });
    expect(answer.text).toBe("Recalled memory: no entries matched the query.");
    expect(answer.tokens).toBe(countTokens(answer.text));
  });

  test("a subject-restricted token packs only what it may read", async () => {
    const minted = await h.json("POST", `/admin/jwt/${tenant}`, {
      token: h.adminToken,
      body: { roles: ["tenant_admin"], sub: "app", subject: "ada", unscoped: "none" },
    });
    expect(minted.status).toBe(201);
    const answer = await pack({ query: "renewal plan", budget_tokens: 2000 }, minted.body.token);
    expect(answer.entries).toHaveLength(1);
    expect(answer.text).toContain("enterprise plan");
    expect(answer.text).not.toContain("starter plan");
  });

  test("a token that searches facts only packs facts only; asking for decisions is search's 403", async () => {
    const factsOnly = await tokenWithRole(h, tenant, "facts-searcher", ["memory:search:facts"]);
    const answer = await pack({ query: "invoice due for the customer", budget_tokens: 2000 }, factsOnly);
    expect(answer.entries.length).toBeGreaterThan(0);
    expect(new Set(answer.entries.map((e: Json) => e.category))).toEqual(new Set(["fact"]));
    const res = await h.call("POST", "/memory/context", {
      token: factsOnly,
      body: { query: "invoice", categories: ["decision"], budget_tokens: 500 },
    });
    await expectProblem(res, 403, "forbidden");
  });

  test("the subject filter narrows as search's does", async () => {
    const answer = await pack({ query: "renewal plan", subject: "bob", budget_tokens: 2000 });
    expect(answer.entries).toHaveLength(1);
    expect(answer.text).toContain("starter plan");
  });
});

describe("bad input", () => {
  const cases: Array<[string, Json, string]> = [
    ["a budget of 0", { query: "x", budget_tokens: 0 }, "/budget_tokens"],
    ["a negative budget", { query: "x", budget_tokens: -5 }, "/budget_tokens"],
    ["a huge budget", { query: "x", budget_tokens: 1e9 }, "/budget_tokens"],
    ["a fractional budget", { query: "x", budget_tokens: 100.5 }, "/budget_tokens"],
    ["no budget", { query: "x" }, "/budget_tokens"],
    ["no query", { budget_tokens: 100 }, "/query"],
    ["an empty query", { query: "", budget_tokens: 100 }, "/query"],
    ["search's limit (the budget decides)", { query: "x", budget_tokens: 100, limit: 5 }, "/limit"],
    ["an unknown field", { query: "x", budget_tokens: 100, top_k: 5 }, "/top_k"],
    ["an unknown trust level", { query: "x", budget_tokens: 100, min_trust: "high" }, "/min_trust"],
  ];
  for (const [name, body, path] of cases) {
    test(`${name}: 422 naming ${path}`, async () => {
      const res = await h.call("POST", "/memory/context", { token: owner, body });
      const problem = await expectProblem(res, 422, "validation_failed");
      expect(problem.errors?.map((e) => e.path)).toContain(path);
    });
  }

  test("no token: 401", async () => {
    const res = await h.call("POST", "/memory/context", { body: { query: "x", budget_tokens: 100 } });
    expect(res.status).toBe(401);
  });
});
