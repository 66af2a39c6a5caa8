import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";
import { type Category, PLURAL_OF } from "../../src/models/category.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { putRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let tenantId: string;
let token: string;
type ApiEntry = { id: string; category: string; content: string; [field: string]: unknown };
const E: Record<string, ApiEntry> = {};
let beforeLate: string;
/** The runtime's clock: transaction-time instants are its readings, moved by hand. */
const clock = new ManualClock();
const nowIso = () => new Date(clock.now()).toISOString();

beforeAll(async () => {
  h = await startHarness({ clock });
  const t = await h.createTenant();
  tenantId = t.tenant_id;
  token = t.token;
  const write = async (key: string, category: Category, body: Record<string, unknown>) => {
    const res = await h.json("POST", `/memory/${PLURAL_OF[category]}`, { token, body });
    if (res.status !== 201) throw new Error(`${key}: ${res.status} ${JSON.stringify(res.body)}`);
    E[key] = res.body;
  };
  await write("globex", "fact", {
    content: "Invoice dispute with Globex escalated to legal",
    tags: ["finance", "globex"],
  });
  await write("renewal", "fact", {
    content: "Globex renewed their support contract",
    tags: ["sales", "globex"],
  });
  await write("late", "fact", { content: "An invoice was paid late by a small customer", tags: ["finance"] });
  await write("workflow", "workflow", {
    content: "Dispute resolution workflow for customers",
    steps: ["log", "review"],
  });
  await write("pelican", "fact", {
    content: "Pelican migration patterns over the Atlantic",
    tags: ["birds"],
  });
  await write("lunch", "fact", { content: "Friday lunch menu includes tomato soup", tags: ["food"] });
  await write("decision", "decision", {
    content: "Approve the Globex invoice write-off",
    tags: ["finance", "globex"],
  });
  await write("exception", "exception", {
    content: "Payment gateway timeout at checkout",
    tags: ["payments"],
  });
  await write("history", "fact", {
    content: "The old headquarters stood on Harbour Street",
    valid_from: "2020-01-01T00:00:00.000Z",
    valid_to: "2022-01-01T00:00:00.000Z",
    tags: ["history"],
  });
  clock.advance(10);
  beforeLate = nowIso();
  clock.advance(10);
  await write("newest", "fact", { content: "Harbour Street office reopened as a museum", tags: ["history"] });
});
afterAll(() => h.close());

async function search(body: Record<string, unknown>, as = token) {
  const res = await h.json("POST", "/memory/search", { token: as, body });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    results: Array<{ entry: ApiEntry; score: number; scores: { vector: number; lexical: number } }>;
    took_ms: number;
  };
}

const ids = (r: { results: Array<{ entry: { id: string } }> }) => r.results.map((x) => x.entry.id);

describe("ranking", () => {
  test("the entry carrying the query's words ranks first among several", async () => {
    const r = await search({ query: "invoice dispute with Globex" });
    expect(r.results[0]!.entry.id).toBe(E.globex!.id);
    // The partial matches are there too, below it.
    expect(ids(r)).toContain(E.renewal!.id);
    expect(ids(r)).toContain(E.late!.id);
  });

  test("another query, another winner", async () => {
    expect((await search({ query: "pelican migration" })).results[0]!.entry.id).toBe(E.pelican!.id);
    expect((await search({ query: "tomato soup for lunch" })).results[0]!.entry.id).toBe(E.lunch!.id);
  });

  test("scores: score and its vector and lexical parts are in [0, 1], best first", async () => {
    const r = await search({ query: "Globex invoice" });
    expect(r.results.length).toBeGreaterThan(1);
    for (const { score, scores } of r.results) {
      for (const x of [score, scores.vector, scores.lexical]) {
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
      }
      expect(Object.keys(scores).sort()).toEqual(["lexical", "vector"]);
    }
    const scores = r.results.map((x) => x.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // The top lexical match is normalised to 1.
    expect(Math.max(...r.results.map((x) => x.scores.lexical))).toBe(1);
    expect(r.results[0]!.scores.vector).toBeGreaterThan(0);
  });

  test("only entries sharing a word with the query score on the lexical side", async () => {
    const r = await search({ query: "pelican" });
    expect(r.results[0]!.entry.id).toBe(E.pelican!.id);
    expect(r.results[0]!.scores.lexical).toBe(1);
    for (const x of r.results.slice(1)) expect(x.scores.lexical).toBe(0);
  });

  test("results are full entries, without embeddings", async () => {
    const r = await search({ query: "pelican" });
    expect(r.results[0]!.entry).toEqual(E.pelican!);
  });

  test("took_ms is present and a non-negative number", async () => {
    const r = await search({ query: "Globex" });
    expect(typeof r.took_ms).toBe("number");
    expect(r.took_ms).toBeGreaterThanOrEqual(0);
    const f = await search({});
    expect(typeof f.took_ms).toBe("number");
  });

  test("search by embedding: the hash embedding of an entry's content finds that entry first", async () => {
    const [vec] = await new HashEmbedder(384).embed([E.exception!.content]);
    const r = await search({ embedding: Array.from(vec!) });
    expect(r.results[0]!.entry.id).toBe(E.exception!.id);
    expect(r.results[0]!.scores.vector).toBeCloseTo(1, 3);
    expect(r.results[0]!.scores.lexical).toBe(0);
  });
});

describe("filters", () => {
  test("tags: every tag must be present", async () => {
    const r = await search({ query: "Globex", tags: ["finance", "globex"] });
    expect(ids(r).sort()).toEqual([E.globex!.id, E.decision!.id].sort());
  });

  test("tags_any: at least one present", async () => {
    const r = await search({ tags_any: ["birds", "food"] });
    expect(ids(r).sort()).toEqual([E.pelican!.id, E.lunch!.id].sort());
  });

  test("tags and tags_any together", async () => {
    const r = await search({ tags: ["finance"], tags_any: ["globex", "payments"] });
    expect(ids(r).sort()).toEqual([E.globex!.id, E.decision!.id].sort());
  });

  test("categories", async () => {
    const decisions = await search({ query: "Globex invoice", categories: ["decision"] });
    expect(ids(decisions)).toEqual([E.decision!.id]);
    const two = await search({ query: "dispute", categories: ["workflow", "fact"] });
    expect(ids(two).sort()).toEqual([E.globex!.id, E.workflow!.id].sort());
    expect(two.results.every((x) => ["workflow", "fact"].includes(x.entry.category))).toBe(true);
  });

  test("valid_at: an entry valid in the past is found then, not now", async () => {
    expect(ids(await search({ query: "Harbour Street headquarters" }))).not.toContain(E.history!.id);
    const then = await search({ query: "Harbour Street headquarters", valid_at: "2021-06-01T00:00:00Z" });
    expect(ids(then)).toEqual([E.history!.id]);
    expect(ids(await search({ tags: ["history"], valid_at: "2021-06-01T00:00:00Z" }))).toEqual([
      E.history!.id,
    ]);
  });

  test("as_of: an entry recorded later is not seen as of before its recording", async () => {
    expect(ids(await search({ query: "Harbour Street museum" }))).toContain(E.newest!.id);
    const before = await search({ query: "Harbour Street museum", as_of: beforeLate });
    expect(ids(before)).not.toContain(E.newest!.id);
    expect(ids(await search({ as_of: beforeLate }))).not.toContain(E.newest!.id);
    expect(ids(await search({ as_of: "2000-01-01T00:00:00Z" }))).toEqual([]);
  });

  test("limit", async () => {
    expect((await search({ query: "Globex invoice customer", limit: 2 })).results).toHaveLength(2);
    expect((await search({ limit: 1 })).results).toHaveLength(1);
    expect((await search({ limit: 100 })).results.length).toBeLessThanOrEqual(100);
  });

  test("default limit is 10", async () => {
    const t = await h.createTenant();
    for (let i = 0; i < 12; i++) {
      expect(
        (await h.call("POST", "/memory/facts", { token: t.token, body: { content: `filler fact ${i}` } }))
          .status,
      ).toBe(201);
    }
    expect((await search({}, t.token)).results).toHaveLength(10);
    expect((await search({ query: "filler fact" }, t.token)).results).toHaveLength(10);
  });

  test("filter-only search (no query): newest first, score 0, across categories", async () => {
    const r = await search({ limit: 100 });
    const everything = Object.values(E).filter((e) => e !== E.history);
    expect(r.results).toHaveLength(everything.length);
    const byRecorded = [...everything].reverse().map((e) => e.id);
    expect(ids(r)).toEqual(byRecorded);
    for (const x of r.results) {
      expect(x.score).toBe(0);
      expect(x.scores).toEqual({ vector: 0, lexical: 0 });
    }
  });

  test("a blank query is a filter too", async () => {
    const r = await search({ query: "   ", categories: ["fact"], limit: 3 });
    expect(r.results.every((x) => x.score === 0)).toBe(true);
    expect(ids(r)).toEqual([E.newest!.id, E.lunch!.id, E.pelican!.id]);
  });
});

describe("search while writes are in flight", () => {
  test("entries written while the first text search runs are still found by their words afterwards", async () => {
    const t = await h.createTenant();
    const N = 30;
    const posts = Array.from({ length: N }, (_, i) =>
      h.json("POST", "/memory/facts", {
        token: t.token,
        body: { content: `concurrent note marker qk${i}v` },
      }),
    );
    // The tenant's first text search, racing the writes above.
    const racing = h.json("POST", "/memory/search", { token: t.token, body: { query: "concurrent note" } });
    const written = await Promise.all(posts);
    expect((await racing).status).toBe(200);
    const missing: number[] = [];
    for (let i = 0; i < N; i++) {
      expect(written[i]!.status).toBe(201);
      const r = await search({ query: `qk${i}v`, limit: 1 }, t.token);
      const top = r.results[0];
      if (!top || top.entry.id !== written[i]!.body.id || top.scores.lexical === 0) missing.push(i);
    }
    expect(missing).toEqual([]);
  });
});

describe("bi-temporal search", () => {
  test("a corrected entry is not found now, but is found as of before the correction", async () => {
    const t = await h.createTenant();
    const wrong = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: "The vault code is seven", valid_from: "2025-01-01T00:00:00Z" },
    });
    clock.advance(10);
    const between = nowIso();
    clock.advance(10);
    const right = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: "The vault code is eight", corrects: wrong.body.id },
    });
    expect(right.status).toBe(201);
    const now = await search({ query: "vault code" }, t.token);
    expect(ids(now)).toEqual([right.body.id]);
    const then = await search({ query: "vault code", as_of: between }, t.token);
    expect(ids(then)).toEqual([wrong.body.id]);
    expect(then.results[0]!.entry.expired_at).toBeNull();
  });

  test("a superseded entry is found at a valid time before its successor", async () => {
    const t = await h.createTenant();
    const a = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: "Office in Paris", valid_from: "2024-01-01T00:00:00Z" },
    });
    const b = await h.json("POST", "/memory/facts", {
      token: t.token,
      body: { content: "Office in Berlin", valid_from: "2025-01-01T00:00:00Z", supersedes: a.body.id },
    });
    expect(ids(await search({ query: "office" }, t.token))).toEqual([b.body.id]);
    const past = await search({ query: "office", valid_at: "2024-06-01T00:00:00Z" }, t.token);
    expect(ids(past)).toEqual([a.body.id]);
    expect(past.results[0]!.entry.valid_to).toBe("2025-01-01T00:00:00.000Z");
  });
});

describe("permissions", () => {
  async function roleToken(name: string, permissions: string[]): Promise<string> {
    await putRole(h, tenantId, { name, permissions, description: "search test role" });
    return h.mint(tenantId, [name], `${name}-agent`);
  }

  test("memory:search:facts narrows the default search to facts", async () => {
    const facts = await roleToken("fact-searcher", ["memory:search:facts"]);
    const r = await search({ query: "Globex invoice" }, facts);
    expect(r.results.length).toBeGreaterThan(0);
    expect(r.results.every((x) => x.entry.category === "fact")).toBe(true);
    expect(ids(r)).not.toContain(E.decision!.id);
    const filter = await search({ limit: 100 }, facts);
    expect(filter.results.every((x) => x.entry.category === "fact")).toBe(true);
    expect(ids(await search({ query: "Globex", categories: ["fact"] }, facts))).toContain(E.globex!.id);
  });

  test("memory:search:facts asking for categories [decision] → 403", async () => {
    const facts = await roleToken("fact-searcher-2", ["memory:search:facts"]);
    const res = await h.call("POST", "/memory/search", {
      token: facts,
      body: { query: "Globex", categories: ["decision"] },
    });
    await expectProblem(res, 403, "forbidden");
    const mixed = await h.call("POST", "/memory/search", {
      token: facts,
      body: { query: "Globex", categories: ["fact", "decision"] },
    });
    await expectProblem(mixed, 403, "forbidden");
    // Refused for the category asked for, not for searching at all.
    const denials = await waitForDenials(h, tenantId, 1);
    const mine = denials.filter((d) => d.sub === "fact-searcher-2-agent");
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((d) => d.permission === "memory:search:decisions")).toBe(true);
  });

  test("memory:read alone cannot search", async () => {
    const reader = await roleToken("read-only", ["memory:read"]);
    await expectProblem(
      await h.call("POST", "/memory/search", { token: reader, body: { query: "x" } }),
      403,
      "forbidden",
    );
  });

  test("no token → 401; the operator → 403", async () => {
    await expectProblem(
      await h.call("POST", "/memory/search", { body: { query: "x" } }),
      401,
      "unauthorized",
    );
    await expectProblem(
      await h.call("POST", "/memory/search", { token: h.adminToken, body: {} }),
      403,
      "forbidden",
    );
  });
});

describe("validation", () => {
  const bad: Array<[string, unknown]> = [
    ["embedding of the wrong length", { embedding: [0.1, 0.2, 0.3] }],
    ["embedding of 385 numbers", { embedding: Array(385).fill(0.1) }],
    ["an all-zero embedding", { embedding: Array(384).fill(0) }],
    ["embedding of strings", { embedding: ["a"] }],
    ["limit 0", { limit: 0 }],
    ["limit 101", { limit: 101 }],
    ["limit 1.5", { limit: 1.5 }],
    ["limit as a string", { limit: "5" }],
    ["an unknown category", { categories: ["opinion"] }],
    ["a plural category", { categories: ["facts"] }],
    ["no categories", { categories: [] }],
    ["an empty tag", { tags: [""] }],
    ["a tag over 64 characters", { tags_any: ["x".repeat(65)] }],
    ["valid_at not RFC 3339", { valid_at: "now" }],
    ["valid_at month 13", { valid_at: "2026-13-40T00:00:00Z" }],
    ["as_of not RFC 3339", { as_of: "2026-01-01" }],
    ["query not a string", { query: 42 }],
    ["query over 4096 characters", { query: "q".repeat(4097) }],
    ["an unknown field", { query: "x", top_k: 5 }],
    ["a JSON array", []],
    ["null", null],
  ];
  for (const [name, body] of bad) {
    test(`${name} → 422`, async () => {
      const res = await h.call("POST", "/memory/search", {
        token,
        raw: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      await expectProblem(res, 422, "validation_failed");
    });
  }

  test("malformed JSON → 400", async () => {
    const res = await h.call("POST", "/memory/search", {
      token,
      raw: '{"query":',
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 400, "bad_request");
  });

  test("a query that is an object with a non-callable toString → 422, not 500", async () => {
    const res = await h.call("POST", "/memory/search", { token, body: { query: { toString: "x" } } });
    await expectProblem(res, 422, "validation_failed");
  });

  test("hostile queries: NUL, emoji, only punctuation, huge tokens → 200", async () => {
    for (const query of [
      "\u0000\u0000",
      "🎉🎉🎉",
      "!!! ??? ...",
      "a".repeat(4096),
      "Globex\u0000invoice",
      "' OR 1=1 --",
    ]) {
      const res = await h.call("POST", "/memory/search", { token, body: { query } });
      expect(res.status).toBe(200);
      await res.text();
    }
  });
});
