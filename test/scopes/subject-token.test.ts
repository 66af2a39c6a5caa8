import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/**
 * Subject-restricted tokens (docs/auth.md "Subject-restricted tokens"): minted with `subject`, such
 * a token reads, lists and searches its subject's entries and the tenant's unscoped ones (unless
 * `unscoped: "none"`), writes only its subject's (a write without one gets it), and a write naming
 * another subject is a 403 recorded as a denial before it is answered.
 */
let h: Harness;
let tenant: string;
let owner: string;
let ada: string;
let adaOnly: string;
const tag = `t${crypto.randomUUID().slice(0, 8)}`;
const ids: Record<string, string> = {};

async function mint(body: Record<string, unknown>) {
  return h.json("POST", `/admin/jwt/${tenant}`, {
    token: h.adminToken,
    body: { roles: ["tenant_admin"], ...body },
  });
}

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenant, token: owner } = await h.createTenant());
  for (const [name, subject] of [
    ["ada", "ada"],
    ["bob", "bob"],
    ["none", undefined],
  ] as const) {
    const res = await h.json("POST", "/memory/facts", {
      token: owner,
      body: { content: `${tag} likes green tea ${name}`, tags: [tag], ...(subject ? { subject } : {}) },
    });
    ids[name] = res.body.id;
  }
  const minted = await mint({ sub: "app", subject: "ada" });
  expect(minted.status).toBe(201);
  expect(minted.body).toMatchObject({ sub: "app", subject: "ada" });
  ada = minted.body.token;
  adaOnly = (await mint({ subject: "ada", unscoped: "none" })).body.token;
});
afterAll(() => h.close());

const names = (items: Array<{ id: string }>) =>
  items.map((e) => Object.entries(ids).find(([, id]) => id === e.id)?.[0] ?? "other").sort();

describe("identity", () => {
  test("GET /tenants/me names the token's subject and its unscoped access", async () => {
    expect((await h.json("GET", "/tenants/me", { token: ada })).body).toMatchObject({
      subject: "ada",
      unscoped: "read",
    });
    expect((await h.json("GET", "/tenants/me", { token: adaOnly })).body).toMatchObject({
      subject: "ada",
      unscoped: "none",
    });
    expect((await h.json("GET", "/tenants/me", { token: owner })).body.subject).toBeUndefined();
  });
});

describe("reads", () => {
  test("a list shows its subject's and the unscoped entries; with unscoped none, its subject's only", async () => {
    const list = await h.json("GET", `/memory/facts?tag=${tag}`, { token: ada });
    expect(names(list.body.items)).toEqual(["ada", "none"]);
    const only = await h.json("GET", `/memory/facts?tag=${tag}`, { token: adaOnly });
    expect(names(only.body.items)).toEqual(["ada"]);
  });

  test("asking for another subject by filter finds nothing", async () => {
    const list = await h.json("GET", `/memory/facts?tag=${tag}&subject=bob`, { token: ada });
    expect(list.body.items).toEqual([]);
    const search = await h.json("POST", "/memory/search", {
      token: ada,
      body: { query: "tea", subject: "bob" },
    });
    expect(search.body.results).toEqual([]);
  });

  test("a search finds its subject's and the unscoped entries", async () => {
    const res = await h.json("POST", "/memory/search", {
      token: ada,
      body: { query: "green tea", tags: [tag] },
    });
    expect(names(res.body.results.map((r: { entry: { id: string } }) => r.entry))).toEqual(["ada", "none"]);
  });

  test("another subject's entry is a 404, by id and by history; its own is read", async () => {
    await expectProblem(await h.call("GET", `/memory/facts/${ids.bob}`, { token: ada }), 404, "not_found");
    await expectProblem(
      await h.call("GET", `/memory/facts/${ids.bob}/history`, { token: ada }),
      404,
      "not_found",
    );
    await expectProblem(
      await h.call("GET", `/memory/facts/${ids.none}`, { token: adaOnly }),
      404,
      "not_found",
    );
    expect((await h.json("GET", `/memory/facts/${ids.ada}`, { token: ada })).status).toBe(200);
    expect((await h.json("GET", `/memory/facts/${ids.none}`, { token: ada })).status).toBe(200);
  });
});

describe("writes", () => {
  test("a write without a subject gets the token's", async () => {
    const res = await h.json("POST", "/memory/facts", { token: ada, body: { content: `${tag} new` } });
    expect(res.status).toBe(201);
    expect(res.body.subject).toBe("ada");
    const rel = await h.json("POST", "/memory/relationships", {
      token: ada,
      body: { content: `${tag} r`, subject: "Ada", predicate: "p", object: "o" },
    });
    expect(rel.body).toMatchObject({ subject: "Ada", scope_subject: "ada" });
  });

  test("a write naming another subject is a 403 naming the field, recorded before it is answered", async () => {
    const before = (await denialsOf(h, tenant)).length;
    const res = await h.call("POST", "/memory/facts", { token: ada, body: { content: "x", subject: "bob" } });
    const problem = await expectProblem(res, 403, "forbidden");
    expect(problem.detail).toContain("subject");
    const denials = await denialsOf(h, tenant);
    expect(denials.length).toBe(before + 1);
    expect(denials[0]).toMatchObject({
      sub: "app",
      method: "POST",
      path: "/memory/facts",
      permission: "memory:write:facts",
    });
    const rel = await h.call("POST", "/memory/relationships", {
      token: ada,
      body: { content: "x", subject: "Ada", predicate: "p", object: "o", scope_subject: "bob" },
    });
    expect((await expectProblem(rel, 403, "forbidden")).detail).toContain("scope_subject");
  });

  test("a batch item naming another subject refuses the batch, naming the item", async () => {
    const res = await h.call("POST", "/memory/facts/batch", {
      token: ada,
      body: { entries: [{ content: `${tag} b1` }, { content: `${tag} b2`, subject: "bob" }] },
    });
    expect((await expectProblem(res, 403, "forbidden")).detail).toContain("entries/1/subject");
    const list = await h.json("GET", `/memory/facts?tag=${tag}`, { token: owner });
    expect(list.body.items.some((e: { content: string }) => e.content.endsWith("b1"))).toBe(false);
  });

  test("links to another subject's entry are refused as unknown; retracting it is a 404, an unscoped one a 403", async () => {
    const link = await h.call("POST", "/memory/facts", {
      token: ada,
      body: { content: `${tag} moved`, supersedes: ids.bob },
    });
    await expectProblem(link, 422, "validation_failed");
    await expectProblem(await h.call("DELETE", `/memory/facts/${ids.bob}`, { token: ada }), 404, "not_found");
    await expectProblem(
      await h.call("DELETE", `/memory/facts/${ids.none}`, { token: ada }),
      403,
      "forbidden",
    );
    const bob = await h.json("GET", `/memory/facts/${ids.bob}`, { token: owner });
    expect(bob.body).toMatchObject({ valid_to: null, expired_at: null });
  });
});

describe("minting and malformed claims", () => {
  test("an invalid subject in the mint body is a 422 naming it; unscoped alone too", async () => {
    for (const body of [
      { subject: "a b" },
      { subject: "x".repeat(129) },
      { unscoped: "none" },
      { subject: "ada", unscoped: "write" },
    ]) {
      const res = await h.call("POST", `/admin/jwt/${tenant}`, {
        token: h.adminToken,
        body: { roles: ["tenant_admin"], ...body },
      });
      const problem = await expectProblem(res, 422, "validation_failed");
      expect(JSON.stringify(problem)).toMatch(/subject|unscoped/);
    }
  });

  const forged = (claims: Record<string, unknown>) =>
    new SignJWT({ sub: "x", tenant_id: tenant, roles: ["tenant_admin"], ...claims })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(TEST_SECRET));

  for (const [what, claims] of [
    ["a subject that is not an id", { subject: "a/b" }],
    ["a subject that is not a string", { subject: ["ada"] }],
    ["an oversized subject", { subject: "a".repeat(10_000) }],
    ["an unknown unscoped value", { subject: "ada", unscoped: "all" }],
    ["unscoped without subject", { unscoped: "read" }],
  ] as const) {
    test(`a token with ${what} is a 401 saying why`, async () => {
      const res = await h.call("GET", "/memory/facts", { token: await forged(claims) });
      const problem = await expectProblem(res, 401, "unauthorized");
      expect(problem.detail).toMatch(/subject|unscoped/);
    });
  }
});

describe("idempotency", () => {
  test("two subjects' tokens of one sub never share an Idempotency-Key", async () => {
    const [one, two] = await Promise.all(
      ["ada", "bob"].map(
        async (subject) => (await mint({ sub: "shared-app", subject })).body.token as string,
      ),
    );
    const write = (token: string) =>
      h.json("POST", "/memory/facts", {
        token,
        body: { content: `${tag} same words` },
        headers: { "idempotency-key": "k-1" },
      });
    const a = await write(one!);
    const b = await write(two!);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect([a.body.subject, b.body.subject]).toEqual(["ada", "bob"]);
    const again = await write(one!);
    expect(again).toMatchObject({ status: 200, body: { id: a.body.id } });
  });
});
