import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * Scope fields of an entry (docs/memory.md "Scopes"): `subject`, `session_id` and `agent_id` are
 * accepted, stored, shown and part of the entry's identity; a relationship names its scope's subject
 * `scope_subject` (its `subject` is its triple's).
 */
let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness();
  ({ token } = await h.createTenant());
});
afterAll(() => h.close());

const post = (plural: string, body: unknown) => h.json("POST", `/memory/${plural}`, { token, body });
const refused = (plural: string, body: unknown) => h.call("POST", `/memory/${plural}`, { token, body });
const unique = () => crypto.randomUUID().slice(0, 8);
const AT = "2026-03-01T10:00:00.000Z";

describe("scope fields", () => {
  test("a fact keeps its subject, session and agent, and reads back with them", async () => {
    const body = {
      content: `Prefers tea ${unique()}`,
      subject: "user-1",
      session_id: "s:1",
      agent_id: "bot",
    };
    const written = await post("facts", body);
    expect(written.status).toBe(201);
    expect(written.body).toMatchObject({ subject: "user-1", session_id: "s:1", agent_id: "bot" });
    const read = await h.json("GET", `/memory/facts/${written.body.id}`, { token });
    expect(read.body).toMatchObject({ subject: "user-1", session_id: "s:1", agent_id: "bot" });
  });

  test("two subjects' identical facts are two entries; the same subject's again is the same entry", async () => {
    const content = `Lives in Lyon ${unique()}`;
    const a = await post("facts", { content, valid_from: AT, subject: "ada" });
    const b = await post("facts", { content, valid_from: AT, subject: "bob" });
    const unscoped = await post("facts", { content, valid_from: AT });
    const again = await post("facts", { content, valid_from: AT, subject: "ada" });
    expect([a.status, b.status, unscoped.status, again.status]).toEqual([201, 201, 201, 200]);
    expect(new Set([a.body.id, b.body.id, unscoped.body.id]).size).toBe(3);
    expect(again.body.id).toBe(a.body.id);
  });

  test("two sessions' identical facts are two entries", async () => {
    const content = `Asked about refunds ${unique()}`;
    const a = await post("facts", { content, valid_from: AT, subject: "ada", session_id: "one" });
    const b = await post("facts", { content, valid_from: AT, subject: "ada", session_id: "two" });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
  });

  test("another subject's near-copy is neither listed as similar nor answered by dedupe", async () => {
    const content = `The customer wants invoices sent monthly by e-mail ${unique()}`;
    const ada = await post("facts", { content, subject: "ada" });
    const bob = await h.json("POST", "/memory/facts?dedupe=similar", {
      token,
      body: { content: `${content}.`, subject: "bob" },
    });
    expect([ada.status, bob.status]).toEqual([201, 201]);
    expect(bob.body.id).not.toBe(ada.body.id);
    expect(bob.body.similar ?? []).toEqual([]);
    const again = await h.json("POST", "/memory/facts?dedupe=similar", {
      token,
      body: { content: `${content}!`, subject: "ada" },
    });
    expect(again).toMatchObject({ status: 200, body: { id: ada.body.id } });
  });

  test("a relationship's scope is scope_subject, beside its triple's subject", async () => {
    const res = await post("relationships", {
      content: `Ada works at Acme ${unique()}`,
      subject: "Ada Lovelace",
      predicate: "works_at",
      object: "Acme",
      scope_subject: "user-1",
      session_id: "s1",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ subject: "Ada Lovelace", scope_subject: "user-1", session_id: "s1" });
    await expectProblem(
      await refused("facts", { content: "x", scope_subject: "user-1" }),
      422,
      "validation_failed",
    );
  });

  test("a batch carries each item's scope", async () => {
    const tag = unique();
    const res = await h.json("POST", "/memory/facts/batch", {
      token,
      body: {
        entries: [
          { content: `one ${tag}`, subject: "ada", session_id: "b1" },
          { content: `two ${tag}`, subject: "bob" },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.entries.map((e: { subject?: string }) => e.subject)).toEqual(["ada", "bob"]);
    expect(res.body.entries[0].session_id).toBe("b1");
  });
});

describe("scope values are identifiers", () => {
  const bad = [
    ["empty", ""],
    ["a space", "ada lovelace"],
    ["a slash", "a/b"],
    ["leading dot", ".ada"],
    ["a control character", "ada\u0000"],
    ["non-ASCII", "adé"],
    ["over 128 characters", "a".repeat(129)],
    ["oversized", "a".repeat(100_000)],
  ] as const;
  for (const field of ["subject", "session_id"]) {
    for (const [what, value] of bad) {
      test(`${field} with ${what} is a 422 naming it`, async () => {
        const res = await refused("facts", { content: "x", [field]: value });
        const problem = await expectProblem(res, 422, "validation_failed");
        expect(JSON.stringify(problem)).toContain(field);
      });
    }
    test(`${field} not a string is a 422`, async () => {
      await expectProblem(await refused("facts", { content: "x", [field]: 42 }), 422, "validation_failed");
    });
  }
  test("128 characters of the allowed set are taken", async () => {
    const id = `A9._:@-${"z".repeat(121)}`;
    const res = await post("facts", { content: `long ${unique()}`, subject: id, session_id: id });
    expect(res.status).toBe(201);
    expect(res.body.subject).toBe(id);
  });
});
