import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, sha8 } from "../../actors/tenant/memory/entry-id.ts";
import type { Entry } from "../../src/models/entry.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * Entry identity (CONTRACT §2): the whole normalised body, so two different entries never collapse
 * into one, and an identical write is still the same entry (200, nothing written).
 */
let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
});
afterAll(() => h.close());

const post = (plural: string, body: unknown) => h.json("POST", `/memory/${plural}`, { token, body });
const read = (plural: string, id: string) => h.json("GET", `/memory/${plural}/${id}`, { token });
const unique = () => crypto.randomUUID().slice(0, 8);
const AT = "2026-03-01T10:00:00.000Z";

describe("distinct entries stay distinct", () => {
  test("two outcomes of the same text and time for two decisions: both written, both decisions resolved", async () => {
    const tag = unique();
    const d1 = await post("decisions", { content: `Pick Postgres ${tag}` });
    const d2 = await post("decisions", { content: `Pick Redis ${tag}` });
    expect([d1.status, d2.status]).toEqual([201, 201]);
    const outcome = (decision_id: string) => ({
      content: `It worked ${tag}`,
      valid_from: AT,
      decision_id,
      result: "success",
    });
    const o1 = await post("outcomes", outcome(d1.body.id));
    const o2 = await post("outcomes", outcome(d2.body.id));
    expect([o1.status, o2.status]).toEqual([201, 201]);
    expect(o2.body.id).not.toBe(o1.body.id);
    expect(o2.body.decision_id).toBe(d2.body.id);
    expect((await read("decisions", d1.body.id)).body.status).toBe("resolved");
    expect((await read("decisions", d2.body.id)).body.status).toBe("resolved");
  });

  test("two relationships with the same text and time but other parties are two entries", async () => {
    const content = `Customer of ${unique()}`;
    const ada = await post("relationships", {
      content,
      valid_from: AT,
      subject: "Ada",
      predicate: "customer_of",
      object: "Acme",
    });
    const bob = await post("relationships", {
      content,
      valid_from: AT,
      subject: "Bob",
      predicate: "customer_of",
      object: "Globex",
    });
    expect([ada.status, bob.status]).toEqual([201, 201]);
    expect(bob.body.id).not.toBe(ada.body.id);
    expect(bob.body).toMatchObject({ subject: "Bob", object: "Globex" });
    expect((await read("relationships", ada.body.id)).body).toMatchObject({ subject: "Ada", object: "Acme" });
  });

  test("a re-post with other tags is a new entry with its own tags; the first keeps its tags", async () => {
    const content = `Tagged ${unique()}`;
    const first = await post("facts", { content, valid_from: AT, tags: ["one"] });
    const second = await post("facts", { content, valid_from: AT, tags: ["two"] });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.tags).toEqual(["two"]);
    expect((await read("facts", first.body.id)).body.tags).toEqual(["one"]);
  });

  test("each typed or temporal field takes part: severity, valid_to, agent_id", async () => {
    const content = `Variant ${unique()}`;
    const base = { content, valid_from: AT };
    const variants = [
      { ...base },
      { ...base, severity: "high" },
      { ...base, valid_to: "2026-04-01T00:00:00.000Z" },
      { ...base, agent_id: "agent-b" },
    ];
    const ids = [];
    for (const body of variants) {
      const res = await post("exceptions", body);
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    expect(new Set(ids).size).toBe(variants.length);
  });

  test("a batch without valid_from: different items are each written, identical ones are one entry", async () => {
    const tag = unique();
    const d1 = await post("decisions", { content: `Option A ${tag}` });
    const d2 = await post("decisions", { content: `Option B ${tag}` });
    const outcome = (decision_id: string) => ({ content: `Done ${tag}`, decision_id, result: "success" });
    const res = await h.json("POST", "/memory/outcomes/batch", {
      token,
      body: { entries: [outcome(d1.body.id), outcome(d2.body.id), outcome(d2.body.id)] },
    });
    expect(res.status).toBe(201);
    expect(res.body.statuses).toEqual([201, 201, 200]);
    const [a, b, c] = res.body.entries;
    expect(b.id).not.toBe(a.id);
    expect(c.id).toBe(b.id);
    expect((await read("decisions", d1.body.id)).body.status).toBe("resolved");
    expect((await read("decisions", d2.body.id)).body.status).toBe("resolved");
  });

  test("an identical write is the same entry: 200 with the stored entry, nothing written", async () => {
    const body = { content: `Same ${unique()}`, valid_from: AT, tags: ["x"], data: { b: 1, a: 2 } };
    const first = await post("facts", body);
    const again = await post("facts", { ...body, data: { a: 2, b: 1 } });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body).toEqual(first.body);
  });

  test("an explicit default is the same entry as the default left out", async () => {
    const content = `Default ${unique()}`;
    const first = await post("exceptions", { content, valid_from: AT });
    const again = await post("exceptions", { content, valid_from: AT, severity: "medium", status: "open" });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
  });

  test("a superseded entry written again is still itself (its identity keeps its first valid_to)", async () => {
    const content = `Price ${unique()}`;
    const old = await post("facts", { content, valid_from: AT });
    const next = await post("facts", {
      content: `${content} v2`,
      valid_from: "2026-03-02T00:00:00.000Z",
      supersedes: old.body.id,
    });
    expect(next.status).toBe(201);
    const again = await post("facts", { content, valid_from: AT });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(old.body.id);
  });
});

describe("server-managed fields", () => {
  test("a decision body that sets status is a 422 naming /status, and nothing is written", async () => {
    const content = `Status ${unique()}`;
    for (const status of ["open", "resolved"]) {
      const problem = await expectProblem(
        await h.call("POST", "/memory/decisions", { token, body: { content, status } }),
        422,
        "validation_failed",
      );
      expect(problem.errors?.map((e) => e.path)).toEqual(["/status"]);
    }
    const batch = await h.call("POST", "/memory/decisions/batch", {
      token,
      body: { entries: [{ content }, { content, status: "resolved" }] },
    });
    const problem = await expectProblem(batch, 422, "validation_failed");
    expect(problem.errors?.[0]?.path).toBe("/entries/1/status");
    const list = await h.json("GET", "/memory/decisions?limit=500", { token });
    expect(list.body.items.filter((e: Entry) => e.content === content)).toEqual([]);
  });

  test("every other server-managed field is refused in a body", async () => {
    for (const field of ["id", "category", "recorded_at", "expired_at", "invalidated_at", "created_by"]) {
      const value =
        field === "id" ? "0123abcd" : field === "category" ? "fact" : field === "created_by" ? "me" : AT;
      const problem = await expectProblem(
        await h.call("POST", "/memory/facts", { token, body: { content: "x", [field]: value } }),
        422,
        "validation_failed",
      );
      expect(problem.errors?.map((e) => e.path)).toEqual([`/${field}`]);
    }
  });

  test("a 422 lists each failing field once", async () => {
    const problem = await expectProblem(
      await h.call("POST", "/memory/relationships", { token, body: { content: "x", subject: "Ada" } }),
      422,
      "validation_failed",
    );
    expect(problem.errors?.map((e) => e.path)).toEqual(["/predicate", "/object"]);
  });
});

describe("entries stored under the earlier id rule", () => {
  test("keep their ids after an upgrade and restart: the same write is a 200 for them, another body a new entry", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mrt-legacy-ids-"));
    try {
      const before = await startHarness({ dataDir });
      const created = await before.createTenant();
      await before.close();

      // What a vault of the earlier version holds: an entry whose id hashes only tenant, category,
      // content, data, valid_from and source.
      const legacy = legacyEntry(created.tenant_id);
      const vault = new TenantVault(tenantDir(dataDir, created.tenant_id));
      const stored = { seq: vault.nextSeq(), entry: legacy };
      await vault.write({
        entries: [stored],
        created: [stored],
        changes: [{ type: "entry.created", id: legacy.id, category: "fact", by: "agent-old" }],
      });
      await vault.close();

      const after = await startHarness({ dataDir });
      try {
        const as = { token: created.token };
        const same = await after.json("POST", "/memory/facts", {
          ...as,
          body: {
            content: legacy.content,
            tags: legacy.tags,
            data: legacy.data,
            valid_from: legacy.valid_from,
            agent_id: "agent-old",
          },
        });
        expect(same.status).toBe(200);
        expect(same.body.id).toBe(legacy.id);
        const other = await after.json("POST", "/memory/facts", {
          ...as,
          body: {
            content: legacy.content,
            tags: ["other"],
            data: legacy.data,
            valid_from: legacy.valid_from,
            agent_id: "agent-old",
          },
        });
        expect(other.status).toBe(201);
        expect(other.body.id).not.toBe(legacy.id);
        const list = await after.json("GET", "/memory/facts?limit=10", as);
        expect(list.body.items.map((e: Entry) => e.id).sort()).toEqual([legacy.id, other.body.id].sort());
      } finally {
        await after.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function legacyEntry(tenant: string): Entry {
  const fields = { content: "Stored before the upgrade", data: { k: "v" }, valid_from: AT };
  const id = sha8(canonicalJson({ tenant, category: "fact", ...fields }));
  return {
    id,
    tenant_id: tenant,
    category: "fact",
    ...fields,
    tags: ["old"],
    valid_to: null,
    agent_id: "agent-old",
    recorded_at: AT,
    expired_at: null,
    invalidated_at: null,
    created_by: "agent-old",
    origin: { kind: "agent", sub: "agent-old" },
    trust: "agent",
  };
}
