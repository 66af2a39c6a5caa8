import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * Scope filters (docs/memory.md "Scope filters"): `subject`, `session_id` and `agent_id` on lists
 * and searches keep exactly the entries of that scope, checked on the entry summary.
 */
let h: Harness;
let token: string;
const tag = `t${crypto.randomUUID().slice(0, 8)}`;
const ids: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
  const rows: Array<[string, Record<string, string>]> = [
    ["ada-s1", { subject: "ada", session_id: "s1", agent_id: "bot-a" }],
    ["ada-s2", { subject: "ada", session_id: "s2", agent_id: "bot-b" }],
    ["bob-s1", { subject: "bob", session_id: "s1", agent_id: "bot-a" }],
    ["none", {}],
  ];
  for (const [name, scope] of rows) {
    const res = await h.json("POST", "/memory/facts", {
      token,
      body: { content: `${tag} likes green tea ${name}`, tags: [tag], ...scope },
    });
    expect(res.status).toBe(201);
    ids[name] = res.body.id;
  }
  const rel = await h.json("POST", "/memory/relationships", {
    token,
    body: {
      content: `${tag} Ada knows Bob`,
      tags: [tag],
      subject: "Ada",
      predicate: "knows",
      object: "Bob",
      scope_subject: "ada",
    },
  });
  expect(rel.status).toBe(201);
  ids.rel = rel.body.id;
});
afterAll(() => h.close());

const names = (items: Array<{ id: string }>) =>
  items.map((e) => Object.entries(ids).find(([, id]) => id === e.id)?.[0] ?? e.id).sort();

const cases: Array<[string, Record<string, string>, string[]]> = [
  ["subject", { subject: "ada" }, ["ada-s1", "ada-s2"]],
  ["session_id", { session_id: "s1" }, ["ada-s1", "bob-s1"]],
  ["agent_id", { agent_id: "bot-b" }, ["ada-s2"]],
  ["all three", { subject: "bob", session_id: "s1", agent_id: "bot-a" }, ["bob-s1"]],
  ["an unknown subject", { subject: "carol" }, []],
];

describe("GET /memory/{category}", () => {
  for (const [what, filter, expected] of cases) {
    test(`filters by ${what}`, async () => {
      const q = new URLSearchParams({ tag, ...filter });
      const res = await h.json("GET", `/memory/facts?${q}`, { token });
      expect(res.status).toBe(200);
      expect(names(res.body.items)).toEqual(expected);
    });
  }
  test("a relationship's scope_subject is what `subject` filters", async () => {
    const res = await h.json("GET", `/memory/relationships?tag=${tag}&subject=ada`, { token });
    expect(names(res.body.items)).toEqual(["rel"]);
    const triple = await h.json("GET", `/memory/relationships?tag=${tag}&subject=Ada`, { token });
    expect(triple.body.items).toEqual([]);
  });
  test("an invalid filter value is a 422 naming it", async () => {
    for (const [field, value] of [
      ["subject", "a b"],
      ["session_id", "x".repeat(129)],
      ["agent_id", ""],
    ]) {
      const res = await h.call("GET", `/memory/facts?${field}=${encodeURIComponent(value!)}`, { token });
      const problem = await expectProblem(res, 422, "validation_failed");
      expect(JSON.stringify(problem)).toContain(field!);
    }
  });
});

describe("POST /memory/search", () => {
  for (const [what, filter, expected] of cases) {
    test(`filters by ${what}, with and without a query`, async () => {
      for (const query of [undefined, "green tea"]) {
        const res = await h.json("POST", "/memory/search", {
          token,
          body: { ...(query ? { query } : {}), tags: [tag], categories: ["fact"], limit: 100, ...filter },
        });
        expect(res.status).toBe(200);
        expect(names(res.body.results.map((r: { entry: { id: string } }) => r.entry))).toEqual(expected);
      }
    });
  }
  test("an invalid filter value is a 422 naming it", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      body: { query: "x", session_id: "no/slash" },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(JSON.stringify(problem)).toContain("session_id");
  });
});
