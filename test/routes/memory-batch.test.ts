import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokenWithRole } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let tenantId: string;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenantId, token } = await h.createTenant());
});
afterAll(() => h.close());

const batch = (plural: string, entries: unknown[], opts: { as?: string; key?: string } = {}) =>
  h.json("POST", `/memory/${plural}/batch`, {
    token: opts.as ?? token,
    body: { entries },
    headers: opts.key ? { "idempotency-key": opts.key } : {},
  });

async function count(plural: string, tag: string): Promise<number> {
  const { body } = await h.json("GET", `/memory/${plural}?limit=500&tag=${tag}`, { token });
  return body.items.length;
}

describe("POST /memory/{category}/batch", () => {
  test("writes every entry, answering them in order, each readable at once", async () => {
    const tag = `b${crypto.randomUUID().slice(0, 8)}`;
    const entries = ["one", "two", "three"].map((content) => ({ content: `${content} ${tag}`, tags: [tag] }));
    const { status, body } = await batch("facts", entries);
    expect(status).toBe(201);
    expect(body.statuses).toEqual([201, 201, 201]);
    expect(body.entries.map((e: { content: string }) => e.content)).toEqual(entries.map((e) => e.content));
    for (const entry of body.entries) {
      const read = await h.json("GET", `/memory/facts/${entry.id}`, { token });
      expect(read.body).toEqual(entry);
    }
    expect(await count("facts", tag)).toBe(3);
  });

  test("identical content in a batch or already stored is the same entry, answered 200", async () => {
    const item = { content: `same ${crypto.randomUUID()}`, valid_from: "2026-01-01T00:00:00Z" };
    const first = await batch("facts", [item, item]);
    expect(first.status).toBe(201);
    expect(first.body.statuses).toEqual([201, 200]);
    expect(first.body.entries[1].id).toBe(first.body.entries[0].id);
    const again = await batch("facts", [item]);
    expect({ status: again.status, statuses: again.body.statuses }).toEqual({ status: 200, statuses: [200] });
  });

  test("one invalid item refuses the batch (422 naming its index) and nothing is written", async () => {
    const tag = `bad${crypto.randomUUID().slice(0, 8)}`;
    const good = { content: `fine ${tag}`, tags: [tag] };
    const schema = await h.call("POST", "/memory/facts/batch", {
      token,
      body: { entries: [good, good, { content: "", tags: [tag] }] },
    });
    const problem = await expectProblem(schema, 422, "validation_failed");
    expect(problem.errors?.[0]?.path).toBe("/entries/2/content");
    const domain = await h.call("POST", "/memory/facts/batch", {
      token,
      body: { entries: [good, { content: `late ${tag}`, tags: [tag], supersedes: "0badbeef" }] },
    });
    const refused = await expectProblem(domain, 422, "validation_failed");
    expect(refused.detail).toStartWith("entries/1: ");
    expect(refused.errors?.[0]?.path).toBe("/entries/1/supersedes");
    expect(await count("facts", tag)).toBe(0);
  });

  test("a batch sees its own earlier items: two outcomes resolve one decision, in one transaction", async () => {
    const decision = await h.json("POST", "/memory/decisions", {
      token,
      body: { content: `offer ${Math.random()}` },
    });
    const outcomes = [
      { content: "first half paid", decision_id: decision.body.id, result: "success", amount: 10 },
      { content: "second half paid", decision_id: decision.body.id, result: "success", amount: 15 },
    ];
    const { status, body } = await batch("outcomes", outcomes);
    expect({ status, statuses: body.statuses }).toEqual({ status: 201, statuses: [201, 201] });
    const resolved = await h.json("GET", `/memory/decisions/${decision.body.id}`, { token });
    expect(resolved.body.status).toBe("resolved");
    const trail = await h.json("GET", `/memory/decisions/${decision.body.id}/history`, { token });
    expect(trail.body.events.map((e: { type: string; related?: string }) => [e.type, e.related])).toEqual([
      ["created", undefined],
      ["resolved_by", body.entries[0].id],
      ["resolved_by", body.entries[1].id],
    ]);
  });

  test("Idempotency-Key: a retry answers the first reply (200); another body under it is 422", async () => {
    const key = `batch-${crypto.randomUUID()}`;
    const entries = [{ content: `idem ${key}` }];
    const first = await batch("facts", entries, { key });
    const retry = await batch("facts", entries, { key });
    expect(first.status).toBe(201);
    expect({ status: retry.status, body: retry.body }).toEqual({ status: 200, body: first.body });
    const other = await h.call("POST", "/memory/facts/batch", {
      token,
      body: { entries: [{ content: "something else" }] },
      headers: { "idempotency-key": key },
    });
    await expectProblem(other, 422, "idempotency_mismatch");
  });

  test("limits and refusals: empty or over 1,000 → 422, another category's field → 422, roles and tenants → 403", async () => {
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", { token, body: { entries: [] } }),
      422,
      "validation_failed",
    );
    const many = Array.from({ length: 1001 }, (_, i) => ({ content: `n${i}` }));
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", { token, body: { entries: many } }),
      422,
      "validation_failed",
    );
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", {
        token,
        body: { entries: [{ content: "x", predicate: "s" }] },
      }),
      422,
      "validation_failed",
    );
    const reader = await tokenWithRole(h, tenantId, "batch_reader", ["memory:read"]);
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", { token: reader, body: { entries: [{ content: "x" }] } }),
      403,
      "forbidden",
    );
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", {
        token: h.adminToken,
        body: { entries: [{ content: "x" }] },
      }),
      403,
      "forbidden",
    );
    const foreign = await h.call("POST", "/memory/facts/batch", {
      token,
      body: {
        entries: [{ content: "mine" }, { content: "theirs", tenant_id: "01JDB2X6J3KQ5W8Z3M4N7P9R2S" }],
      },
    });
    await expectProblem(foreign, 403, "forbidden");
    await expectProblem(
      await h.call("POST", "/memory/facts/batch", {
        token,
        raw: "{",
        headers: { "content-type": "application/json" },
      }),
      400,
      "bad_request",
    );
  });

  test("a full batch of 1,000 is written, and a body over 16 × the body limit is a 413", async () => {
    const tag = `k${crypto.randomUUID().slice(0, 8)}`;
    const entries = Array.from({ length: 1000 }, (_, i) => ({ content: `bulk ${i} ${tag}`, tags: [tag] }));
    const { status, body } = await batch("facts", entries);
    expect({ status, n: body.entries.length }).toEqual({ status: 201, n: 1000 });
    const { body: page } = await h.json("GET", `/memory/facts?limit=500&tag=${tag}`, { token });
    expect(page.items.length).toBe(500);
    expect(page.next_cursor).not.toBeNull();
    const huge = JSON.stringify({ entries: [{ content: "x".repeat(17 * 1024 * 1024) }] });
    const res = await h.call("POST", "/memory/facts/batch", {
      token,
      raw: huge,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 413, "payload_too_large");
  });
});
