import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEDUPE_THRESHOLD, SIMILAR_THRESHOLD } from "../../src/models/similar.ts";
import { putRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * Near-duplicates seen on write (docs/embedding-and-search.md, "Near-duplicates on write"): a single
 * write's answer lists live entries of its category at least SIMILAR_THRESHOLD similar in `similar`;
 * `?dedupe=similar` answers one at least DEDUPE_THRESHOLD similar instead of writing.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const BASE = "Alice prefers green tea in the morning before work";
/** One word changed of seven terms: 6/7 ≈ 0.857, similar but not a copy. */
const CHANGED = "Alice prefers black tea in the morning before work";
/** One word added: 7/√56 ≈ 0.935, a near-copy. */
const ADDED = "Alice strongly prefers green tea in the morning before work";
const UNRELATED = "Quarterly sales figures were sent to the board";
/** An explicit valid_from: without one it is the write's time, and two writes are two entries. */
const AT = "2025-03-01T00:00:00.000Z";
/** A valid time after AT, for an entry superseding one valid from AT. */
const LATER = "2025-04-01T00:00:00.000Z";

async function tenant() {
  return h.createTenant();
}

function post(token: string, plural: string, body: Record<string, unknown>, query = "", headers = {}) {
  return h.json("POST", `/memory/${plural}${query}`, { token, body, headers });
}

async function count(token: string, plural: string): Promise<number> {
  return (await h.json("GET", `/memory/${plural}?limit=500`, { token })).body.items.length;
}

test("the thresholds are as documented", () => {
  expect([SIMILAR_THRESHOLD, DEDUPE_THRESHOLD]).toEqual([0.8, 0.9]);
});

describe("similar on write", () => {
  let token: string;
  let base: { id: string };
  beforeAll(async () => {
    ({ token } = await tenant());
    base = (await post(token, "facts", { content: BASE })).body;
  });

  test("a near-duplicate is written (201) and lists the entry it repeats, with its similarity", async () => {
    const res = await post(token, "facts", { content: CHANGED });
    expect(res.status).toBe(201);
    expect(res.body.similar).toEqual([{ id: base.id, score: 0.8571 }]);
    // The rest of the answer is the entry, as a read gives it.
    const { similar: _, ...entry } = res.body;
    expect((await h.json("GET", `/memory/facts/${res.body.id}`, { token })).body).toEqual(entry);
  });

  test("an unrelated write lists nothing: the answer is the entry alone", async () => {
    const res = await post(token, "facts", { content: UNRELATED });
    expect(res.status).toBe(201);
    expect(res.body.similar).toBeUndefined();
    expect((await h.json("GET", `/memory/facts/${res.body.id}`, { token })).body).toEqual(res.body);
  });

  test("an exact duplicate is still the same entry (200), and lists the others", async () => {
    const t = await tenant();
    const first = await post(t.token, "facts", { content: BASE, valid_from: AT });
    const again = await post(t.token, "facts", { content: BASE, valid_from: AT });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual(first.body);
    const near = await post(t.token, "facts", { content: ADDED });
    const third = await post(t.token, "facts", { content: BASE, valid_from: AT });
    expect(third.status).toBe(200);
    expect(third.body.id).toBe(first.body.id);
    expect(third.body.similar).toEqual([{ id: near.body.id, score: 0.9354 }]);
  });

  test("only live entries of the same category count", async () => {
    const t = await tenant();
    await post(t.token, "decisions", { content: BASE });
    const retracted = await post(t.token, "facts", { content: ADDED });
    await h.json("DELETE", `/memory/facts/${retracted.body.id}`, { token: t.token });
    // Valid times given: a superseding entry must begin after the one it closes, and two writes in
    // one millisecond would otherwise refuse the supersession (422) and leave CHANGED live.
    const old = await post(t.token, "facts", { content: CHANGED, valid_from: AT });
    const newer = await post(t.token, "facts", {
      content: "Alice now prefers coffee",
      supersedes: old.body.id,
      valid_from: LATER,
    });
    expect(newer.status).toBe(201);
    const res = await post(t.token, "facts", { content: BASE });
    expect(res.status).toBe(201);
    expect(res.body.similar).toBeUndefined();
  });

  test("the entry a write supersedes is related on purpose, not a duplicate", async () => {
    const t = await tenant();
    const old = await post(t.token, "facts", { content: BASE, valid_from: AT });
    const res = await post(t.token, "facts", {
      content: CHANGED,
      supersedes: old.body.id,
      valid_from: LATER,
    });
    expect(res.status).toBe(201);
    expect(res.body.similar).toBeUndefined();
  });

  test("an outcome of another decision is not a duplicate, whatever its words", async () => {
    const t = await tenant();
    const d1 = await post(t.token, "decisions", { content: "Offer Acme a discount" });
    const d2 = await post(t.token, "decisions", { content: "Offer Globex a discount" });
    const o1 = await post(t.token, "outcomes", {
      content: "The deal was won",
      decision_id: d1.body.id,
      result: "success",
    });
    const o2 = await post(t.token, "outcomes", {
      content: "The deal was won",
      decision_id: d2.body.id,
      result: "success",
    });
    expect([o1.status, o2.status]).toEqual([201, 201]);
    expect(o2.body.similar).toBeUndefined();
  });

  test("an idempotent retry answers what the first write answered", async () => {
    const t = await tenant();
    const original = await post(t.token, "facts", { content: BASE });
    const headers = { "idempotency-key": "similar-retry-1" };
    const first = await post(t.token, "facts", { content: CHANGED }, "", headers);
    const again = await post(t.token, "facts", { content: CHANGED }, "", headers);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(first.body.similar).toEqual([{ id: original.body.id, score: 0.8571 }]);
    expect(again.body).toEqual(first.body);
  });
});

describe("dedupe=similar", () => {
  test("a near-copy answers the existing entry (200) and writes nothing", async () => {
    const { token } = await tenant();
    const base = await post(token, "facts", { content: BASE });
    const res = await post(token, "facts", { content: ADDED }, "?dedupe=similar");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(base.body);
    expect(await count(token, "facts")).toBe(1);
  });

  test("below the dedupe threshold it writes, listing what is similar", async () => {
    const { token } = await tenant();
    const base = await post(token, "facts", { content: BASE });
    const res = await post(token, "facts", { content: CHANGED }, "?dedupe=similar");
    expect(res.status).toBe(201);
    expect(res.body.content).toBe(CHANGED);
    expect(res.body.similar).toEqual([{ id: base.body.id, score: 0.8571 }]);
    expect(await count(token, "facts")).toBe(2);
  });

  test("an exact duplicate is the same entry (200), as without it", async () => {
    const { token } = await tenant();
    const base = await post(token, "facts", { content: BASE, valid_from: AT });
    const res = await post(token, "facts", { content: BASE, valid_from: AT }, "?dedupe=similar");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(base.body);
  });

  test("an unknown mode is refused (422)", async () => {
    const { token } = await tenant();
    await expectProblem(
      await h.call("POST", "/memory/facts?dedupe=exact", { token, body: { content: BASE } }),
      422,
      "validation_failed",
    );
  });
});

describe("a caller who may write but not read the category", () => {
  test("is told of no near-duplicate, and is refused dedupe (403, recorded)", async () => {
    const t = await tenant();
    await post(t.token, "facts", { content: BASE });
    await putRole(h, t.tenant_id, { name: "fact-writer", permissions: ["memory:write:facts"] });
    const writer = await h.mint(t.tenant_id, ["fact-writer"], "writer-agent");
    const res = await post(writer, "facts", { content: ADDED });
    expect(res.status).toBe(201);
    expect(res.body.similar).toBeUndefined();
    await expectProblem(
      await h.call("POST", "/memory/facts?dedupe=similar", { token: writer, body: { content: CHANGED } }),
      403,
      "forbidden",
    );
    const denials = await waitForDenials(h, t.tenant_id, 1);
    expect(denials.at(-1)!.permission).toBe("memory:read:facts");
  });
});

describe("with the caller's own vectors (client embedder)", () => {
  let c: Harness;
  beforeAll(async () => {
    c = await startHarness({
      env: { MEMORY_RUNTIME_EMBEDDER: "client", MEMORY_RUNTIME_EMBEDDING_DIMS: "4" },
    });
  });
  afterAll(() => c.close());

  test("a paraphrase in other words is similar by its vector; an orthogonal one is not", async () => {
    const { token } = await c.createTenant();
    const write = (content: string, embedding: number[]) =>
      c.json("POST", "/memory/facts", { token, body: { content, embedding } });
    const base = await write("The CFO signed off the budget", [1, 0, 0, 0]);
    // No shared word, but a vector at cosine 0.96 to the first.
    const paraphrase = await write("Finance chief approved spending plan", [0.96, 0.28, 0, 0]);
    expect(paraphrase.status).toBe(201);
    expect(paraphrase.body.similar).toEqual([{ id: base.body.id, score: 0.96 }]);
    const other = await write("Finance chief approved travel rules", [0, 0, 1, 0]);
    expect(other.body.similar).toBeUndefined();
  });
});
