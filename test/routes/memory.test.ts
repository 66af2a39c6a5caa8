import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CATEGORIES, type Category, PLURAL_OF } from "../../src/models/category.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { TENANT_INDEX_FILE } from "../../src/search/vector/index-tuning.ts";
import { ISO_MS, putRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const SHA8 = /^[0-9a-f]{8}$/;

/** An entry as the API returns it (CONTRACT §5); typed fields vary by category. */
type ApiEntry = {
  id: string;
  tenant_id: string;
  category: string;
  content: string;
  valid_from: string;
  valid_to: string | null;
  recorded_at: string;
  expired_at: string | null;
  invalidated_at: string | null;
  created_by: string;
  agent_id: string;
  [field: string]: unknown;
};
const SUB = "agent-42";

let h: Harness;
/** The runtime's clock: recorded_at and the bi-temporal instants are its readings, moved by hand. */
const clock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

/** A fresh tenant and a tenant_admin token whose `sub` is known. */
async function tenant(sub = SUB): Promise<{ tenantId: string; token: string }> {
  const t = await h.createTenant();
  return { tenantId: t.tenant_id, token: await h.mint(t.tenant_id, ["tenant_admin"], sub) };
}

/** Creates a role through the admin API and mints a token holding only it. */
async function roleToken(
  tenantId: string,
  name: string,
  permissions: string[],
  sub = `${name}-agent`,
): Promise<string> {
  await putRole(h, tenantId, { name, permissions, description: `test role ${name}` });
  return h.mint(tenantId, [name], sub);
}

async function post(
  token: string,
  category: Category,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) {
  return h.json("POST", `/memory/${PLURAL_OF[category]}`, { token, body, headers });
}

async function create(token: string, category: Category, body: Record<string, unknown>): Promise<ApiEntry> {
  const res = await post(token, category, body);
  if (res.status !== 201) throw new Error(`create ${category}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function list(
  token: string,
  category: Category,
  query = "",
): Promise<{ items: ApiEntry[]; next_cursor: string | null }> {
  const res = await h.json("GET", `/memory/${PLURAL_OF[category]}${query ? `?${query}` : ""}`, { token });
  if (res.status !== 200) throw new Error(`list ${category}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const idsOf = (items: Array<{ id: string }>) => items.map((e) => e.id);

describe("create, read and list, per category", () => {
  let ctx: { tenantId: string; token: string };
  let decisionForOutcome: ApiEntry;

  beforeAll(async () => {
    ctx = await tenant();
    decisionForOutcome = await create(ctx.token, "decision", { content: "Which supplier for Q3?" });
  });

  const bodies: Record<Category, () => Record<string, unknown>> = {
    decision: () => ({
      content: "Pick the blue supplier",
      rationale: "cheaper",
      options: ["blue", "red"],
      chosen: "blue",
    }),
    exception: () => ({ content: "Invoice 42 bounced", tags: ["billing"] }),
    fact: () => ({ content: "The warehouse is in Lyon", data: { city: "Lyon", floors: 3 } }),
    workflow: () => ({ content: "Refund procedure", steps: ["check", "approve", "pay"] }),
    relationship: () => ({
      content: "Alice manages Bob",
      subject: "Alice",
      predicate: "manages",
      object: "Bob",
    }),
    outcome: () => ({
      content: "Supplier delivered",
      decision_id: decisionForOutcome.id,
      result: "success",
      amount: 1200,
    }),
  };
  const defaults: Record<Category, Record<string, unknown>> = {
    decision: { status: "open" },
    exception: { severity: "medium", status: "open" },
    fact: {},
    workflow: {},
    relationship: {},
    outcome: { currency: "USD" },
  };

  for (const category of CATEGORIES) {
    test(`${category}: 201 with the server fields and defaults, readable by id`, async () => {
      const body = bodies[category]();
      clock.advance(1000);
      const res = await post(ctx.token, category, body);
      expect(res.status).toBe(201);
      expect(res.res.headers.get("content-type")).toStartWith("application/json");
      const e = res.body;
      expect(e.id).toMatch(SHA8);
      expect(e).toMatchObject({
        ...body,
        ...defaults[category],
        tenant_id: ctx.tenantId,
        category,
        expired_at: null,
        invalidated_at: null,
        valid_to: null,
        created_by: SUB,
        agent_id: SUB,
      });
      expect(e.recorded_at).toMatch(ISO_MS);
      expect(e.valid_from).toMatch(ISO_MS);
      // Recorded at the runtime's now (the injected clock's).
      expect(e.recorded_at).toBe(new Date(clock.now()).toISOString());
      // valid_from defaults to now.
      expect(e.valid_from).toBe(e.recorded_at);
      expect(e).not.toHaveProperty("embedding");

      const read = await h.json("GET", `/memory/${PLURAL_OF[category]}/${e.id}`, { token: ctx.token });
      expect(read.status).toBe(200);
      // A decision that an outcome named has changed since; everything else reads back as created.
      expect(read.body).toEqual(e);
    });
  }

  test("agent_id may be given; created_by is still the token's sub", async () => {
    const e = await create(ctx.token, "fact", { content: "agent given", agent_id: "bot-9" });
    expect(e.agent_id).toBe("bot-9");
    expect(e.created_by).toBe(SUB);
  });

  test("a body tenant_id naming the caller's own tenant is accepted", async () => {
    const e = await create(ctx.token, "fact", { content: "own tenant named", tenant_id: ctx.tenantId });
    expect(e.tenant_id).toBe(ctx.tenantId);
    expect(e).not.toHaveProperty("embedding");
  });

  test("?include=embedding returns the stored vector (hash embedder: 384 dims)", async () => {
    const e = await create(ctx.token, "fact", { content: "vector please" });
    const read = await h.json("GET", `/memory/facts/${e.id}?include=embedding`, { token: ctx.token });
    expect(read.status).toBe(200);
    expect(read.body.embedding).toHaveLength(384);
    const norm = Math.sqrt(read.body.embedding.reduce((s: number, x: number) => s + x * x, 0));
    expect(norm).toBeGreaterThan(0.99);
    const listed = await list(ctx.token, "fact", "include=embedding&limit=1");
    expect(listed.items[0]!.embedding).toHaveLength(384);
    const plain = await list(ctx.token, "fact", "limit=1");
    expect(plain.items[0]).not.toHaveProperty("embedding");
  });

  test("unknown entry id in a known category → 404", async () => {
    const res = await h.call("GET", "/memory/facts/00000000", { token: ctx.token });
    await expectProblem(res, 404, "not_found");
  });

  test("list: 200 {items, next_cursor: null}, newest first, only that category", async () => {
    const own = await tenant();
    const created: string[] = [];
    for (let i = 0; i < 4; i++)
      created.push((await create(own.token, "workflow", { content: `workflow ${i}` })).id);
    await create(own.token, "fact", { content: "not a workflow" });
    const page = await list(own.token, "workflow");
    expect(Object.keys(page).sort()).toEqual(["items", "next_cursor"]);
    expect(page.next_cursor).toBeNull();
    expect(idsOf(page.items)).toEqual([...created].reverse());
    const recorded = page.items.map((e) => Date.parse(e.recorded_at));
    for (let i = 1; i < recorded.length; i++) expect(recorded[i]!).toBeLessThanOrEqual(recorded[i - 1]!);
    expect(page.items.every((e) => e.category === "workflow")).toBe(true);
  });

  test("an empty category lists {items: [], next_cursor: null}", async () => {
    const own = await tenant();
    expect(await list(own.token, "relationship")).toEqual({ items: [], next_cursor: null });
  });

  test("?tag= narrows a list to entries carrying that tag", async () => {
    const own = await tenant();
    const a = await create(own.token, "exception", { content: "tagged a", tags: ["urgent", "billing"] });
    await create(own.token, "exception", { content: "untagged" });
    const c = await create(own.token, "exception", { content: "tagged c", tags: ["urgent"] });
    await create(own.token, "fact", { content: "fact tagged", tags: ["urgent"] });
    expect(idsOf((await list(own.token, "exception", "tag=urgent")).items)).toEqual([c.id, a.id]);
    expect(idsOf((await list(own.token, "exception", "tag=billing")).items)).toEqual([a.id]);
    expect((await list(own.token, "exception", "tag=none")).items).toEqual([]);
  });
});

describe("outcomes", () => {
  test("creating an outcome resolves its decision", async () => {
    const { token } = await tenant();
    const decision = await create(token, "decision", { content: "Ship on Friday?" });
    expect(decision.status).toBe("open");
    const outcome = await create(token, "outcome", {
      content: "Shipped",
      decision_id: decision.id,
      result: "success",
    });
    expect(outcome).toMatchObject({ decision_id: decision.id, result: "success", currency: "USD" });
    const read = await h.json("GET", `/memory/decisions/${decision.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe("resolved");
    // Only the status changed: it is the same decision.
    expect({ ...read.body, status: "open" }).toEqual(decision);
    const decisions = await list(token, "decision");
    expect(decisions.items.find((d) => d.id === decision.id)?.status).toBe("resolved");
  });

  test("GET /memory/outcomes lists the outcomes of resolved decisions, newest first", async () => {
    const { token } = await tenant();
    const d1 = await create(token, "decision", { content: "Hire Ann?" });
    const d2 = await create(token, "decision", { content: "Hire Ben?" });
    const o1 = await create(token, "outcome", {
      content: "Ann hired",
      decision_id: d1.id,
      result: "success",
      amount: 10,
    });
    const o2 = await create(token, "outcome", {
      content: "Ben declined",
      decision_id: d2.id,
      result: "failure",
      currency: "EUR",
    });
    const page = await list(token, "outcome");
    expect(idsOf(page.items)).toEqual([o2.id, o1.id]);
    expect(page.items[1]).toMatchObject({ amount: 10, currency: "USD", result: "success" });
    expect(page.items[0]).toMatchObject({ currency: "EUR", result: "failure" });
  });

  test("an outcome naming a fact, or an unknown id, is refused with 422 and writes nothing", async () => {
    const { token } = await tenant();
    const fact = await create(token, "fact", { content: "not a decision" });
    for (const decision_id of [fact.id, "0badc0de"]) {
      const res = await h.call("POST", "/memory/outcomes", {
        token,
        body: { content: `outcome of ${decision_id}`, decision_id, result: "neutral" },
      });
      const problem = await expectProblem(res, 422, "validation_failed");
      expect(problem.detail).toContain("decision_id");
    }
    expect((await list(token, "outcome")).items).toEqual([]);
  });
});

describe("tenancy and permissions", () => {
  let a: { tenantId: string; token: string };
  let b: { tenantId: string; token: string };
  let fact: ApiEntry;

  beforeAll(async () => {
    a = await tenant("agent-a");
    b = await tenant("agent-b");
    fact = await create(a.token, "fact", { content: "Tenant A's secret fact" });
  });

  test("a fact's id read under /memory/decisions → 404", async () => {
    const res = await h.call("GET", `/memory/decisions/${fact.id}`, { token: a.token });
    await expectProblem(res, 404, "not_found");
    for (const category of CATEGORIES.filter((c) => c !== "fact")) {
      expect(
        (await h.call("GET", `/memory/${PLURAL_OF[category]}/${fact.id}`, { token: a.token })).status,
      ).toBe(404);
    }
  });

  test("another tenant's entry → 404, and never appears in its lists or searches", async () => {
    // A tenant of its own, so that what other tests write into b cannot hide a leak or fake one.
    const c = await tenant("agent-c");
    const res = await h.call("GET", `/memory/facts/${fact.id}`, { token: c.token });
    const problem = await expectProblem(res, 404, "not_found");
    expect(JSON.stringify(problem)).not.toContain("secret fact");
    expect((await list(c.token, "fact")).items).toEqual([]);
    const search = await h.json("POST", "/memory/search", { token: c.token, body: { query: "secret fact" } });
    expect(search.status).toBe(200);
    expect(search.body.results).toEqual([]);
  });

  test("the same content in two tenants gets two different ids", async () => {
    const valid_from = "2025-01-01T00:00:00.000Z";
    const inA = await create(a.token, "fact", { content: "shared words", valid_from });
    const inB = await create(b.token, "fact", { content: "shared words", valid_from });
    expect(inA.id).not.toBe(inB.id);
    expect(inB.tenant_id).toBe(b.tenantId);
  });

  test("a write whose body names another tenant → 403, recorded as a denial of the caller's tenant", async () => {
    const res = await h.call("POST", "/memory/facts", {
      token: a.token,
      body: { content: "planted into B", tenant_id: b.tenantId },
    });
    await expectProblem(res, 403, "forbidden");
    const denials = await waitForDenials(h, a.tenantId, 1);
    const denial = denials.find((d) => d.path === "/memory/facts" && d.method === "POST");
    expect(denial).toBeDefined();
    expect(denial).toMatchObject({ tenant_id: a.tenantId, sub: "agent-a", roles: ["tenant_admin"] });
    expect(denial!.at).toMatch(ISO_MS);
    // Nothing was written anywhere.
    expect((await list(b.token, "fact")).items.map((e) => e.content)).not.toContain("planted into B");
    expect((await list(a.token, "fact")).items.map((e) => e.content)).not.toContain("planted into B");
  });

  test("a role holding memory:read only → 403 on POST, 200 on GET", async () => {
    const reader = await roleToken(a.tenantId, "reader", ["memory:read"]);
    const res = await h.call("POST", "/memory/facts", { token: reader, body: { content: "reader writes" } });
    await expectProblem(res, 403, "forbidden");
    expect((await h.call("GET", `/memory/facts/${fact.id}`, { token: reader })).status).toBe(200);
    expect((await h.call("GET", "/memory/facts", { token: reader })).status).toBe(200);
    const denials = await waitForDenials(h, a.tenantId, 1);
    expect(denials.find((d) => d.sub === "reader-agent")).toMatchObject({
      permission: "memory:write:facts",
      method: "POST",
      path: "/memory/facts",
    });
  });

  test("a role holding memory:write:facts writes facts but not decisions, and cannot read", async () => {
    const writer = await roleToken(a.tenantId, "fact-writer", ["memory:write:facts"]);
    const ok = await h.json("POST", "/memory/facts", {
      token: writer,
      body: { content: "written by the fact writer" },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.created_by).toBe("fact-writer-agent");
    const refused = await h.call("POST", "/memory/decisions", {
      token: writer,
      body: { content: "decided" },
    });
    await expectProblem(refused, 403, "forbidden");
    await expectProblem(await h.call("GET", "/memory/facts", { token: writer }), 403, "forbidden");
    expect((await list(a.token, "decision")).items.map((e) => e.content)).not.toContain("decided");
  });

  test("a token whose role was deleted loses its permissions at once", async () => {
    const token = await roleToken(a.tenantId, "short-lived", ["memory:*"]);
    expect((await h.call("GET", "/memory/facts", { token })).status).toBe(200);
    const del = await h.call("DELETE", `/admin/roles/${a.tenantId}/short-lived`, { token: h.adminToken });
    expect(del.status).toBe(200);
    await expectProblem(await h.call("GET", "/memory/facts", { token }), 403, "forbidden");
  });

  test("the operator token has no memory of its own → 403", async () => {
    await expectProblem(await h.call("GET", "/memory/facts", { token: h.adminToken }), 403, "forbidden");
    const res = await h.call("POST", "/memory/facts", { token: h.adminToken, body: { content: "operator" } });
    await expectProblem(res, 403, "forbidden");
  });

  test("no token → 401", async () => {
    await expectProblem(await h.call("GET", "/memory/facts"), 401, "unauthorized");
    await expectProblem(
      await h.call("POST", "/memory/facts", { body: { content: "x" } }),
      401,
      "unauthorized",
    );
    await expectProblem(await h.call("GET", `/memory/facts/${fact.id}`), 401, "unauthorized");
  });

  test("an unknown category path → 404", async () => {
    await expectProblem(await h.call("GET", "/memory/opinions", { token: a.token }), 404, "not_found");
    await expectProblem(await h.call("GET", "/memory/fact", { token: a.token }), 404, "not_found");
  });
});

describe("paging", () => {
  test("limit 7 walks 25 facts, each exactly once, newest first", async () => {
    const { token } = await tenant();
    const created: string[] = [];
    for (let i = 0; i < 25; i++)
      created.push((await create(token, "fact", { content: `paged fact ${i}` })).id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(
        token,
        "fact",
        `limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      sizes.push(page.items.length);
      seen.push(...idsOf(page.items));
      cursor = page.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([7, 7, 7, 4]);
    expect(seen).toEqual([...created].reverse());
  });

  test("a page that ends exactly at the last entry says next_cursor null (or an empty last page)", async () => {
    const { token } = await tenant();
    for (let i = 0; i < 6; i++) await create(token, "fact", { content: `six ${i}` });
    const first = await list(token, "fact", "limit=3");
    expect(first.items).toHaveLength(3);
    expect(first.next_cursor).not.toBeNull();
    const second = await list(token, "fact", `limit=3&cursor=${first.next_cursor}`);
    expect(second.items).toHaveLength(3);
    expect(second.next_cursor).toBeNull();
  });

  test("entries written between page fetches are never yielded, and originals are each seen once", async () => {
    const { token } = await tenant();
    const created: string[] = [];
    for (let i = 0; i < 25; i++) created.push((await create(token, "fact", { content: `original ${i}` })).id);
    const added = new Set<string>();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(token, "fact", `limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...idsOf(page.items));
      cursor = page.next_cursor;
      pages++;
      // New facts arrive while the caller is paging.
      for (let i = 0; i < 3; i++)
        added.add((await create(token, "fact", { content: `arrived p${pages} #${i}` })).id);
    } while (cursor);
    expect(seen).toEqual([...created].reverse());
    expect(seen.filter((id) => added.has(id))).toEqual([]);
    // The new facts are there for a fresh walk.
    const fresh = await list(token, "fact", "limit=500");
    expect(fresh.items).toHaveLength(25 + added.size);
  });

  test("a cursor from one category cannot leak another category's entries", async () => {
    const { token } = await tenant();
    for (let i = 0; i < 3; i++) await create(token, "fact", { content: `fact ${i}` });
    for (let i = 0; i < 3; i++) await create(token, "decision", { content: `decision ${i}` });
    const page = await list(token, "fact", "limit=1");
    const rest = await list(token, "decision", `cursor=${page.next_cursor}`);
    expect(rest.items.every((e) => e.category === "decision")).toBe(true);
  });
});

describe("bi-temporal views", () => {
  const T1 = "2025-01-01T00:00:00.000Z";
  const T2 = "2025-06-01T00:00:00.000Z";
  const BEFORE_T1 = "2024-12-01T00:00:00.000Z";
  const BETWEEN = "2025-03-01T00:00:00.000Z";
  const AFTER_T2 = "2025-09-01T00:00:00.000Z";
  const iso = (ms: number) => new Date(ms).toISOString();

  let token: string;
  let A: ApiEntry;
  let B: ApiEntry;
  let C: ApiEntry;
  /** Transaction-time instants captured between the writes. */
  let beforeA: string;
  let afterA: string;
  let afterB: string;
  let afterC: string;

  beforeAll(async () => {
    ({ token } = await tenant());
    // Transaction time is the injected clock's: each instant captured lies strictly between writes.
    beforeA = iso(clock.now());
    clock.advance(10);
    A = await create(token, "fact", { content: "The CEO is Alice", valid_from: T1 });
    clock.advance(10);
    afterA = iso(clock.now());
    clock.advance(10);
    B = await create(token, "fact", { content: "The CEO is Bob", valid_from: T2, supersedes: A.id });
    clock.advance(10);
    afterB = iso(clock.now());
    clock.advance(10);
    C = await create(token, "fact", { content: "The CEO is Carol", corrects: B.id });
    clock.advance(10);
    afterC = iso(clock.now());
    await create(token, "fact", {
      content: "The office was closed for works",
      valid_from: "2024-01-01T00:00:00.000Z",
      valid_to: "2024-02-01T00:00:00.000Z",
    });
  });

  const view = async (query: string) => {
    const page = await list(token, "fact", query);
    return new Map(page.items.map((e) => [e.content as string, e]));
  };

  test("the writes themselves: supersession and correction are recorded on the older entries", async () => {
    const a = (await h.json("GET", `/memory/facts/${A.id}`, { token })).body;
    expect(a.valid_to).toBe(T2);
    expect(Date.parse(a.invalidated_at)).toBe(Date.parse(B.recorded_at));
    expect(a.expired_at).toBeNull();
    const b = (await h.json("GET", `/memory/facts/${B.id}`, { token })).body;
    expect(Date.parse(b.expired_at)).toBe(Date.parse(C.recorded_at));
    expect(b.valid_to).toBeNull();
    // A correction takes the corrected entry's place, valid from the same instant by default.
    expect(C.valid_from).toBe(T2);
  });

  type Row = { name: string; query: string; shows: Record<string, Record<string, unknown>>; hides: string[] };
  const rows = (): Row[] => [
    {
      name: "now: the correction stands in for B; A ended at T2; D long over",
      query: "",
      shows: { "The CEO is Carol": { expired_at: null } },
      hides: ["The CEO is Alice", "The CEO is Bob", "The office was closed for works"],
    },
    {
      name: "valid_at between T1 and T2: A, with valid_to = T2",
      query: `valid_at=${BETWEEN}`,
      shows: { "The CEO is Alice": { valid_to: T2 } },
      hides: ["The CEO is Bob", "The CEO is Carol"],
    },
    {
      name: "valid_at after T2: C (B is corrected), not A",
      query: `valid_at=${AFTER_T2}`,
      shows: { "The CEO is Carol": {} },
      hides: ["The CEO is Alice", "The CEO is Bob"],
    },
    {
      name: "valid_at exactly T2: the successor (valid_to is exclusive)",
      query: `valid_at=${T2}`,
      shows: { "The CEO is Carol": {} },
      hides: ["The CEO is Alice"],
    },
    {
      name: "valid_at before T1: nothing about the CEO",
      query: `valid_at=${BEFORE_T1}`,
      shows: {},
      hides: ["The CEO is Alice", "The CEO is Bob", "The CEO is Carol"],
    },
    {
      name: "as true at a past time: D while it was valid",
      query: "valid_at=2024-01-15T00:00:00.000Z",
      shows: { "The office was closed for works": { valid_to: "2024-02-01T00:00:00.000Z" } },
      hides: ["The CEO is Alice"],
    },
  ];

  for (const row of rows()) {
    test(row.name, async () => {
      const seen = await view(row.query);
      for (const [content, fields] of Object.entries(row.shows)) {
        expect(seen.get(content)).toMatchObject(fields);
      }
      for (const content of row.hides) expect(seen.has(content)).toBe(false);
    });
  }

  test("as known before the correction: B, with expired_at null; not C", async () => {
    const seen = await view(`as_of=${afterB}&valid_at=${AFTER_T2}`);
    expect(seen.get("The CEO is Bob")).toMatchObject({ id: B.id, expired_at: null });
    expect(seen.has("The CEO is Carol")).toBe(false);
    expect(seen.has("The CEO is Alice")).toBe(false);
  });

  test("as known before the supersession: A with valid_to null and invalidated_at null, even after T2", async () => {
    const seen = await view(`as_of=${afterA}&valid_at=${AFTER_T2}`);
    expect(seen.get("The CEO is Alice")).toMatchObject({
      id: A.id,
      valid_to: null,
      invalidated_at: null,
      expired_at: null,
    });
    expect(seen.has("The CEO is Bob")).toBe(false);
    expect(seen.has("The CEO is Carol")).toBe(false);
  });

  test("as_of before A was recorded: nothing", async () => {
    const page = await list(token, "fact", `as_of=${beforeA}&valid_at=${BETWEEN}`);
    expect(page.items).toEqual([]);
    const later = await list(token, "fact", `as_of=${beforeA}&valid_at=${AFTER_T2}`);
    expect(later.items).toEqual([]);
  });

  test("as_of after everything equals the default view", async () => {
    const explicit = await list(token, "fact", `as_of=${afterC}`);
    const implicit = await list(token, "fact");
    expect(idsOf(explicit.items)).toEqual(idsOf(implicit.items));
  });

  test("as_of accepts any RFC 3339 offset", async () => {
    const local = new Date(Date.parse(afterA) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const page = await list(token, "fact", `as_of=${encodeURIComponent(local)}&valid_at=${BETWEEN}`);
    expect(idsOf(page.items)).toEqual([A.id]);
  });

  test("supersession rules: the successor must start later, and the target must exist", async () => {
    const early = await h.call("POST", "/memory/facts", {
      token,
      body: { content: "Too early", valid_from: "2024-06-01T00:00:00.000Z", supersedes: C.id },
    });
    await expectProblem(early, 422, "validation_failed");
    const unknown = await h.call("POST", "/memory/facts", {
      token,
      body: { content: "Orphan", supersedes: "0badc0de" },
    });
    await expectProblem(unknown, 422, "validation_failed");
    const unknownCorrection = await h.call("POST", "/memory/facts", {
      token,
      body: { content: "Orphan", corrects: "0badc0de" },
    });
    await expectProblem(unknownCorrection, 422, "validation_failed");
  });

  test("an entry already corrected cannot be corrected again", async () => {
    const res = await h.call("POST", "/memory/facts", {
      token,
      body: { content: "The CEO is Dave", corrects: B.id },
    });
    await expectProblem(res, 422, "validation_failed");
  });
});

describe("idempotency and content identity", () => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await tenant());
  });

  test("the same Idempotency-Key twice → 201 then 200, same entry, one entry listed", async () => {
    const headers = { "idempotency-key": "req-0001" };
    const first = await post(token, "decision", { content: "Idempotent decision" }, headers);
    expect(first.status).toBe(201);
    const second = await post(token, "decision", { content: "Idempotent decision" }, headers);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const items = (await list(token, "decision")).items.filter((e) => e.content === "Idempotent decision");
    expect(items).toHaveLength(1);
  });

  test("a key reused with a different body is a 422 idempotency_mismatch, and nothing is written", async () => {
    const headers = { "idempotency-key": "req-0002" };
    const first = await post(token, "fact", { content: "first body" }, headers);
    expect(first.status).toBe(201);
    const reused = await h.call("POST", "/memory/facts", {
      token,
      body: { content: "second body" },
      headers,
    });
    const problem = await expectProblem(reused, 422, "idempotency_mismatch");
    expect(problem.type).toBe("/problems/idempotency_mismatch");
    expect((await list(token, "fact")).items.map((e) => e.content)).not.toContain("second body");
    // The same body under that key still replays the first answer.
    const retry = await post(token, "fact", { content: "first body" }, headers);
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(first.body.id);
  });

  test("a different key → a new entry", async () => {
    const one = await post(token, "fact", { content: "keyed one" }, { "idempotency-key": "key-a" });
    const two = await post(token, "fact", { content: "keyed two" }, { "idempotency-key": "key-b" });
    expect(one.status).toBe(201);
    expect(two.status).toBe(201);
    expect(two.body.id).not.toBe(one.body.id);
  });

  test("concurrent retries with one key write one entry", async () => {
    const headers = { "idempotency-key": "burst-key" };
    const replies = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(token, "workflow", { content: "burst workflow", valid_from: "2025-01-01T00:00:00Z" }, headers),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
  });

  for (const [name, key] of [
    ["with a space", "bad key"],
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
  ] as const) {
    test(`a malformed Idempotency-Key (${name}) → 422`, async () => {
      const res = await h.call("POST", "/memory/facts", {
        token,
        body: { content: `malformed key ${name}` },
        headers: { "idempotency-key": key },
      });
      await expectProblem(res, 422, "validation_failed");
    });
  }

  test("identical canonical content twice → 201 then 200 with the same id", async () => {
    const body = {
      content: "Paris is the capital of France",
      valid_from: "2020-01-01T00:00:00Z",
      data: { a: 1, b: 2 },
    };
    const first = await post(token, "fact", body);
    expect(first.status).toBe(201);
    // Same content, key order of data differs, same instant in another notation.
    const second = await post(token, "fact", {
      data: { b: 2, a: 1 },
      valid_from: "2020-01-01T01:00:00+01:00",
      content: "Paris is the capital of France",
    });
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(first.body.id);
    expect((await list(token, "fact")).items.filter((e) => e.content === body.content)).toHaveLength(1);
  });

  test("the same content at another valid_from is another entry", async () => {
    const one = await post(token, "fact", { content: "Recurring", valid_from: "2020-01-01T00:00:00Z" });
    const two = await post(token, "fact", { content: "Recurring", valid_from: "2021-01-01T00:00:00Z" });
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(one.body.id).not.toBe(two.body.id);
  });

  test("the same content in another category is another entry", async () => {
    const valid_from = "2020-01-01T00:00:00Z";
    const one = await post(token, "fact", { content: "Cross-category", valid_from });
    const two = await post(token, "workflow", { content: "Cross-category", valid_from });
    expect([one.status, two.status]).toEqual([201, 201]);
    expect(one.body.id).not.toBe(two.body.id);
  });
});

describe("restart", () => {
  test("entries, lists and search results survive a restart; the vector index file is written", async () => {
    const own = await h.createTenant();
    const token = await h.mint(own.tenant_id, ["tenant_admin"], SUB);
    const written: ApiEntry[] = [];
    for (const category of ["fact", "decision", "workflow", "exception"] as const) {
      for (let i = 0; i < 3; i++)
        written.push(await create(token, category, { content: `${category} number ${i} about pelicans` }));
    }
    const special = await create(token, "fact", {
      content: "Zanzibar cloves export figures",
      tags: ["trade"],
    });
    const keyed = await post(
      token,
      "decision",
      { content: "keyed before the restart" },
      { "idempotency-key": "restart-key" },
    );
    expect(keyed.status).toBe(201);
    const listsBefore = await Promise.all(CATEGORIES.map((c) => list(token, c)));
    const searchBody = { query: "Zanzibar cloves" };
    const searchBefore = await h.json("POST", "/memory/search", { token, body: searchBody });
    expect(searchBefore.body.results[0].entry.id).toBe(special.id);

    await h.restart();

    const tokenAfter = await h.mint(own.tenant_id, ["tenant_admin"], SUB);
    for (const e of [...written, special]) {
      const read = await h.json("GET", `/memory/${PLURAL_OF[e.category as Category]}/${e.id}`, {
        token: tokenAfter,
      });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(e);
    }
    const listsAfter = await Promise.all(CATEGORIES.map((c) => list(tokenAfter, c)));
    expect(listsAfter).toEqual(listsBefore);
    const searchAfter = await h.json("POST", "/memory/search", { token: tokenAfter, body: searchBody });
    expect(searchAfter.status).toBe(200);
    expect(searchAfter.body.results).toEqual(searchBefore.body.results);
    expect(existsSync(join(h.dataDir, "tenants", own.tenant_id, TENANT_INDEX_FILE))).toBe(true);

    // Idempotency records survive too.
    const retried = await post(
      tokenAfter,
      "decision",
      { content: "keyed before the restart" },
      { "idempotency-key": "restart-key" },
    );
    expect(retried.status).toBe(200);
    expect(retried.body.id).toBe(keyed.body.id);

    // Writes continue after the restart and sort after the old ones.
    const after = await create(tokenAfter, "fact", { content: "written after the restart" });
    expect((await list(tokenAfter, "fact", "limit=1")).items[0]!.id).toBe(after.id);
  });
});
