/**
 * Merges that keep both sides (docs/memory.md, "Merging near-duplicates"): `?dedupe=merge` records
 * the new entry and hides it behind the one it repeats, `as_of` before a merge shows each, an
 * un-merge restores both, a merge never raises trust, hard negatives are not merged, the review
 * band is listed and decided, and only `memory:merge` may do any of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "typed-memory-runtime/client";
import { MERGE_THRESHOLD, REVIEW_THRESHOLD } from "../../src/models/merge.ts";
import { derivedOrigin } from "../../src/provenance/trust.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { tokenWithRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
type Json = any;

const BASE = "Alice prefers green tea in the morning before work";
/** One word added: ≈ 0.935, above the merge threshold. */
const NEAR = "Alice strongly prefers green tea in the morning before work";
/** One word changed: ≈ 0.857, in the review band. */
const BAND = "Alice prefers black tea in the morning before work";

const clock = new ManualClock();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

function post(token: string, body: Json, query = "?dedupe=merge", plural = "facts") {
  clock.advance(1000);
  return h.json("POST", `/memory/${plural}${query}`, { token, body });
}

async function listed(token: string, query = ""): Promise<string[]> {
  const res = await h.json("GET", `/memory/facts?limit=500${query}`, { token });
  expect(res.status).toBe(200);
  return res.body.items.map((e: Json) => e.id).sort();
}

async function events(token: string, id: string): Promise<Array<{ type: string; related?: string }>> {
  const res = await h.json("GET", `/memory/facts/${id}/history`, { token });
  expect(res.status).toBe(200);
  return res.body.events.map((e: Json) => ({ type: e.type, ...(e.related ? { related: e.related } : {}) }));
}

test("the thresholds are as documented", () => {
  expect([REVIEW_THRESHOLD, MERGE_THRESHOLD]).toEqual([0.8, 0.9]);
});

describe("merge on write", () => {
  test("the new entry is recorded, linked both ways, and the read model shows one", async () => {
    const { token } = await h.createTenant();
    const base = (await post(token, { content: BASE }, "")).body;
    const near = await post(token, { content: NEAR });
    expect(near.status).toBe(201);
    expect(near.body.merged_into).toBe(base.id);
    expect(near.body.expired_at).not.toBeNull();
    expect(await listed(token)).toEqual([base.id]);
    const search = await h.json("POST", "/memory/search", { token, body: { query: "green tea morning" } });
    expect(search.body.results.map((r: Json) => r.entry.id)).toEqual([base.id]);
    // Nothing dropped: the absorbed entry reads by id, with the merge's time as its expiry.
    const read = await h.json("GET", `/memory/facts/${near.body.id}`, { token });
    expect([read.status, read.body.content]).toEqual([200, NEAR]);
    expect(await events(token, near.body.id)).toContainEqual({ type: "merged_into", related: base.id });
    expect(await events(token, base.id)).toContainEqual({ type: "merged_from", related: near.body.id });
    const record = await h.json("GET", `/memory/merges/${near.body.id}`, { token });
    expect(record.body).toMatchObject({ from: near.body.id, into: base.id, status: "merged", score: 0.9354 });
  });

  test("as_of before a merge shows each; an un-merge restores both, recorded on both sides", async () => {
    const { token } = await h.createTenant();
    const a = (await post(token, { content: BASE }, "")).body;
    const b = (await post(token, { content: NEAR }, "")).body;
    const before = new Date(clock.now()).toISOString();
    clock.advance(1000);
    const merged = await h.json("POST", "/memory/merges", {
      token,
      body: { category: "fact", from: b.id, into: a.id },
    });
    expect(merged.status).toBe(201);
    expect(merged.body).toMatchObject({ from: b.id, into: a.id, status: "merged", score: null });
    expect(await listed(token)).toEqual([a.id]);
    expect(await listed(token, `&as_of=${before}`)).toEqual([a.id, b.id].sort());
    clock.advance(1000);
    const undone = await h.json("POST", `/memory/merges/${b.id}/unmerge`, { token });
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ status: "unmerged", unmerged_by: expect.any(String) });
    expect(await listed(token)).toEqual([a.id, b.id].sort());
    expect(await events(token, b.id)).toContainEqual({ type: "unmerged", related: a.id });
    expect(await events(token, a.id)).toContainEqual({ type: "unmerged", related: b.id });
    await expectProblem(await h.call("POST", `/memory/merges/${b.id}/unmerge`, { token }), 409, "conflict");
  });

  test("a low-trust extracted entry stays low after a high-trust write is merged into it", async () => {
    const tenant = await h.createTenant();
    const provenance = derivedOrigin("extractor", [{ id: "turn-1", trust: "agent" }]);
    const actor = h.runtime.services.tenant(tenant.tenant_id);
    const draft = { category: "fact", content: BASE } as Json;
    const low = await actor.ask({
      type: "entry.create",
      draft,
      createdBy: "extractor",
      provenance,
      overrides: [],
    });
    expect(low.entry.trust).toBe("extracted");
    const high = await post(tenant.token, { content: NEAR });
    expect([high.body.trust, high.body.merged_into]).toEqual(["operator", low.entry.id]);
    const survivor = (await h.json("GET", `/memory/facts/${low.entry.id}`, { token: tenant.token })).body;
    expect({ trust: survivor.trust, content: survivor.content }).toEqual({
      trust: "extracted",
      content: BASE,
    });
    // Nothing of the merge answers a reader asking for agent trust or more.
    expect(await listed(tenant.token, "&min_trust=agent")).toEqual([]);
  });

  test("hard negatives are not merged: another invoice, amount, date, person, a negation, plan against done", async () => {
    const { token } = await h.createTenant();
    const base = "Invoice INV-1041 from Acme Corp for 1200 EUR was paid on 3 March";
    const negatives = [
      "Invoice INV-1042 from Acme Corp for 1200 EUR was paid on 3 March",
      "Invoice INV-1041 from Acme Corp for 1300 EUR was paid on 3 March",
      "Invoice INV-1041 from Acme Corp for 1200 EUR was paid on 3 April",
      "Invoice INV-1041 from Globex for 1200 EUR was paid on 3 March",
      "Invoice INV-1041 from Acme Corp for 1200 EUR was not paid on 3 March",
    ];
    const first = (await post(token, { content: base }, "")).body;
    for (const content of negatives) {
      const res = await post(token, { content });
      expect(res.status).toBe(201);
      expect(res.body.merged_into).toBeUndefined();
    }
    expect((await listed(token)).length).toBe(negatives.length + 1);
    const plan = (
      await post(token, { content: "Bob will migrate Initech to the enterprise plan in June" }, "")
    ).body;
    const done = await post(token, { content: "Bob migrated Initech to the enterprise plan in June" });
    expect(done.body.merged_into).toBeUndefined();
    expect(await listed(token)).toContain(plan.id);
    expect(await listed(token)).toContain(first.id);
  });

  test("another subject's entry is never merged into", async () => {
    const { token } = await h.createTenant();
    await post(token, { content: BASE, subject: "user-1" }, "");
    const other = await post(token, { content: NEAR, subject: "user-2" });
    expect(other.body.merged_into).toBeUndefined();
    expect((await listed(token)).length).toBe(2);
  });
});

describe("the review band", () => {
  test("a pair between the thresholds is flagged, listed a page at a time, accepted or rejected", async () => {
    const { token } = await h.createTenant();
    const base = (await post(token, { content: BASE }, "")).body;
    const one = await post(token, { content: BAND });
    const two = await post(token, { content: "Alice prefers green tea in the evening before work" });
    expect([one.body.merged_into, typeof one.body.review, typeof two.body.review]).toEqual([
      undefined,
      "string",
      "string",
    ]);
    expect((await listed(token)).length).toBe(3);
    const page = await h.json("GET", "/memory/merges/review?limit=1", { token });
    expect(page.status).toBe(200);
    expect(page.body.items.length).toBe(1);
    const rest = await h.json("GET", `/memory/merges/review?limit=1&cursor=${page.body.next_cursor}`, {
      token,
    });
    const ids = [...page.body.items, ...rest.body.items].map((r: Json) => r.id).sort();
    expect(ids).toEqual([one.body.review, two.body.review].sort());
    expect(rest.body.items[0]).toMatchObject({ status: "pending", into: base.id, category: "fact" });

    const rejected = await h.json("POST", `/memory/merges/review/${one.body.review}/reject`, { token });
    expect(rejected.body.review).toMatchObject({ status: "rejected", decided_by: expect.any(String) });
    const accepted = await h.json("POST", `/memory/merges/review/${two.body.review}/accept`, { token });
    expect(accepted.body.merge).toMatchObject({ from: two.body.id, into: base.id, status: "merged" });
    expect(await listed(token)).toEqual([base.id, one.body.id].sort());
    expect((await h.json("GET", "/memory/merges/review", { token })).body).toEqual({
      items: [],
      next_cursor: null,
    });
    const again = await h.call("POST", `/memory/merges/review/${one.body.review}/accept`, { token });
    await expectProblem(again, 409, "conflict");
  });
});

describe("permissions and bad input", () => {
  test("merging needs memory:merge: a writer's dedupe=merge, merge and review are 403, each recorded first", async () => {
    const tenant = await h.createTenant();
    const writer = await tokenWithRole(h, tenant.tenant_id, "writer", ["memory:read", "memory:write"]);
    const base = (await post(tenant.token, { content: BASE }, "")).body;
    const other = (await post(tenant.token, { content: BAND }, "")).body;
    await expectProblem(
      await h.call("POST", "/memory/facts?dedupe=merge", { token: writer, body: { content: NEAR } }),
      403,
      "forbidden",
    );
    const body = { category: "fact", from: other.id, into: base.id };
    await expectProblem(await h.call("POST", "/memory/merges", { token: writer, body }), 403, "forbidden");
    await expectProblem(await h.call("GET", "/memory/merges/review", { token: writer }), 403, "forbidden");
    const denials = await waitForDenials(h, tenant.tenant_id, 3);
    expect(denials.map((d) => d.permission)).toContain("memory:merge:facts");
    // Narrowed to facts: merges facts, not decisions.
    const facts = await tokenWithRole(h, tenant.tenant_id, "merger", [
      "memory:read",
      "memory:write",
      "memory:merge:facts",
    ]);
    expect((await h.json("POST", "/memory/merges", { token: facts, body })).status).toBe(201);
    const decision = { category: "decision", from: other.id, into: base.id };
    await expectProblem(
      await h.call("POST", "/memory/merges", { token: facts, body: decision }),
      403,
      "forbidden",
    );
  });

  test("unknown ids 404, merged twice 409, an entry into itself and malformed ids 422", async () => {
    const { token } = await h.createTenant();
    const a = (await post(token, { content: BASE }, "")).body;
    const b = (await post(token, { content: BAND }, "")).body;
    const merge = (body: Json) => h.call("POST", "/memory/merges", { token, body });
    await expectProblem(await merge({ category: "fact", from: "0000beef", into: a.id }), 404, "not_found");
    await expectProblem(await merge({ category: "decision", from: b.id, into: a.id }), 404, "not_found");
    expect((await merge({ category: "fact", from: b.id, into: a.id })).status).toBe(201);
    await expectProblem(await merge({ category: "fact", from: b.id, into: a.id }), 409, "conflict");
    await expectProblem(await merge({ category: "fact", from: a.id, into: b.id }), 409, "conflict");
    await expectProblem(await merge({ category: "fact", from: a.id, into: a.id }), 422, "validation_failed");
    await expectProblem(
      await merge({ category: "fact", from: "nope", into: a.id }),
      422,
      "validation_failed",
    );
    await expectProblem(await h.call("POST", "/memory/merges/0000beef/unmerge", { token }), 404, "not_found");
    await expectProblem(
      await h.call("POST", "/memory/merges/NOPE/unmerge", { token }),
      422,
      "validation_failed",
    );
    await expectProblem(
      await h.call("POST", "/memory/merges/review/x-y/accept", { token }),
      422,
      "validation_failed",
    );
    await expectProblem(
      await h.call("GET", "/memory/merges/review?limit=0", { token }),
      422,
      "validation_failed",
    );
  });

  test("another tenant sees none of a tenant's merges, and a subject's token none of another subject's", async () => {
    const mine = await h.createTenant();
    const theirs = await h.createTenant();
    const a = (await post(mine.token, { content: BASE, subject: "user-1" }, "")).body;
    const b = (await post(mine.token, { content: NEAR, subject: "user-1" }, "")).body;
    expect(
      (
        await h.json("POST", "/memory/merges", {
          token: mine.token,
          body: { category: "fact", from: b.id, into: a.id },
        })
      ).status,
    ).toBe(201);
    await expectProblem(
      await h.call("GET", `/memory/merges/${b.id}`, { token: theirs.token }),
      404,
      "not_found",
    );
    await expectProblem(
      await h.call("POST", `/memory/merges/${b.id}/unmerge`, { token: theirs.token }),
      404,
      "not_found",
    );
    const minted = await h.json("POST", `/admin/jwt/${mine.tenant_id}`, {
      token: h.adminToken,
      body: { roles: ["tenant_admin"], sub: "user-2-agent", subject: "user-2" },
    });
    expect(minted.status).toBe(201);
    const restricted = minted.body.token;
    await expectProblem(
      await h.call("GET", `/memory/merges/${b.id}`, { token: restricted }),
      404,
      "not_found",
    );
    await expectProblem(
      await h.call("POST", `/memory/merges/${b.id}/unmerge`, { token: restricted }),
      404,
      "not_found",
    );
  });
});

test("the typed client merges, reads, lists reviews and un-merges", async () => {
  const { token } = await h.createTenant();
  const client = createClient({ baseUrl: "http://local", token, fetch: (r) => h.app.handle(r) });
  const a = (await post(token, { content: BASE }, "")).body;
  const b = (await post(token, { content: BAND })).body;
  const reviews = await client.merges.reviews({ limit: 10 });
  expect(reviews.data?.items.map((r) => r.id)).toEqual([b.review]);
  const merged = await client.merges.accept(b.review);
  expect(merged.data?.merge).toMatchObject({ from: b.id, into: a.id });
  expect((await client.merges.get(b.id)).data?.status).toBe("merged");
  expect((await client.merges.unmerge(b.id)).data?.status).toBe("unmerged");
  const again = await client.merges.merge({ category: "fact", from: b.id, into: a.id });
  expect(again.data?.status).toBe("merged");
});

test("MCP's memory_add merges with dedupe=merge: the answer names the survivor, the list shows one", async () => {
  const { token } = await h.createTenant();
  const base = (await post(token, { content: BASE }, "")).body;
  clock.advance(1000);
  const raw = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "memory_add", arguments: { category: "fact", content: NEAR, dedupe: "merge" } },
  });
  const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" };
  const res = await h.call("POST", "/mcp", { token, raw, headers });
  expect(res.status).toBe(200);
  const reply = (await res.json()) as Json;
  expect(reply.result.isError ?? false).toBe(false);
  expect(reply.result.structuredContent.merged_into).toBe(base.id);
  expect(await listed(token)).toEqual([base.id]);
});

test("merges and reviews are durable: after a restart the read model, the record and the review are as they were", async () => {
  const { token } = await h.createTenant();
  const base = (await post(token, { content: BASE }, "")).body;
  const near = (await post(token, { content: NEAR })).body;
  const band = (await post(token, { content: BAND })).body;
  await h.restart();
  expect(await listed(token)).toEqual([base.id, band.id].sort());
  expect((await h.json("GET", `/memory/merges/${near.id}`, { token })).body.status).toBe("merged");
  const reviews = (await h.json("GET", "/memory/merges/review", { token })).body.items;
  expect(reviews.map((r: Json) => r.id)).toEqual([band.review]);
});
