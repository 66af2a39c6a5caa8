import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePayload, ISO_MS, readJson } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const create = (body: unknown) => h.call("POST", "/admin/tenants", { token: h.adminToken, body });
const listNames = async (): Promise<string[]> =>
  (await h.json("GET", "/admin/tenants", { token: h.adminToken })).body.tenants.map(
    (t: { name: string }) => t.name,
  );

describe("POST /admin/tenants", () => {
  test("201 with tenant_id, tenant_name, roles, token and ttl_seconds; the token works", async () => {
    const res = await create({ name: "Acme" });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual(["roles", "tenant_id", "tenant_name", "token", "ttl_seconds"]);
    expect(body.tenant_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(body).toMatchObject({ tenant_name: "Acme", roles: ["tenant_admin"], ttl_seconds: 3600 });
    const claims = decodePayload(body.token);
    expect(claims).toMatchObject({ tenant_id: body.tenant_id, roles: ["tenant_admin"] });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.admin).toBeUndefined();
    const me = await h.json("GET", "/tenants/me", { token: body.token });
    expect(me.body).toMatchObject({
      tenant_id: body.tenant_id,
      tenant_name: "Acme",
      roles: ["tenant_admin"],
    });
  });

  test("the name is stored trimmed", async () => {
    const res = await create({ name: "   Spaced Out \t" });
    expect(res.status).toBe(201);
    expect((await readJson(res)).tenant_name).toBe("Spaced Out");
    expect(await listNames()).toContain("Spaced Out");
  });

  test("409 for a name already taken, case-insensitively and with surrounding spaces", async () => {
    expect((await create({ name: "Taken Co" })).status).toBe(201);
    for (const name of ["Taken Co", "taken co", "TAKEN CO", "  tAkEn Co  ", "\tTaken Co\n"]) {
      await expectProblem(await create({ name }), 409, "conflict");
    }
    expect((await listNames()).filter((n) => n.toLowerCase() === "taken co")).toEqual(["Taken Co"]);
  });

  test("concurrent creations of one name: exactly one wins", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ name: i % 2 ? "Race Co" : "race co" })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
  });

  test("names of 1 and 128 characters (after trimming) are accepted", async () => {
    expect((await create({ name: "Z" })).status).toBe(201);
    expect((await create({ name: "n".repeat(128) })).status).toBe(201);
    expect((await create({ name: `   ${"m".repeat(128)}   ` })).status).toBe(201);
  });

  test("name length counts characters (code points), not UTF-16 units", async () => {
    // 128 emoji are 256 UTF-16 units: still 128 characters.
    const emoji = "🦊".repeat(128);
    const res = await create({ name: emoji });
    expect(res.status).toBe(201);
    expect((await readJson(res)).tenant_name).toBe(emoji);
    await expectProblem(await create({ name: "🐺".repeat(129) }), 422, "validation_failed");
  });

  const unprintable: Array<[string, string]> = [
    ["a NUL", "Acme\u0000Corp"],
    ["an ANSI escape", "\u001b[31mRed Corp"],
    ["a zero-width space", "Zero\u200bWidth"],
    ["a zero-width joiner", "Join\u200dCo"],
    ["a right-to-left override", "Evil\u202eCo"],
    ["a byte-order mark inside", "Bom\ufeffCo"],
    ["a line separator", "Line\u2028Sep"],
    ["a newline inside", "Two\nLines"],
    ["a lone surrogate", "Half\ud83dCo"],
  ];
  for (const [what, name] of unprintable) {
    test(`422 for a name with ${what}`, async () => {
      const problem = await expectProblem(await create({ name }), 422, "validation_failed");
      expect(problem.errors?.[0]?.path).toBe("/name");
      expect(await listNames()).not.toContain(name);
    });
  }

  test("names are unique after NFKC normalisation and case folding", async () => {
    const pairs: Array<[string, string]> = [
      ["Straße GmbH", "STRASSE GMBH"],
      ["ﬁne Foods", "Fine Foods"],
      ["Ｗｉｄｅ Ｃｏ", "wide co"],
      ["ΟΔΟΣ", "οδος"],
      ["Café Noir", "Cafe\u0301 Noir"],
    ];
    for (const [first, second] of pairs) {
      expect({ first, status: (await create({ name: first })).status }).toEqual({ first, status: 201 });
      await expectProblem(await create({ name: second }), 409, "conflict");
    }
  });

  // [what, body, the path the first error names]
  const invalid: Array<[string, unknown, string]> = [
    ["an empty object", {}, "/name"],
    ["an empty name", { name: "" }, "/name"],
    ["a name of only spaces", { name: "     " }, "/name"],
    ["a name of only whitespace", { name: "\t\n  " }, "/name"],
    ["a name over 128 characters", { name: "x".repeat(129) }, "/name"],
    ["a name over 128 characters inside spaces", { name: ` ${"y".repeat(129)} ` }, "/name"],
    ["a numeric name", { name: 42 }, "/name"],
    ["a null name", { name: null }, "/name"],
    ["an array name", { name: ["Acme 2"] }, "/name"],
    ["an object name", { name: { first: "Acme" } }, "/name"],
    ["an unknown field", { name: "Fine Name", owner: "me" }, "/owner"],
    ["an array body", [{ name: "Array Co" }], "/"],
    ["a string body", "Acme String", "/"],
    ["a null body", null, "/"],
    ["a number body", 7, "/"],
  ];
  for (const [what, body, path] of invalid) {
    test(`422 for ${what}, naming ${path}`, async () => {
      const before = (await listNames()).length;
      const problem = await expectProblem(await create(body), 422, "validation_failed");
      expect(problem.errors?.length).toBeGreaterThan(0);
      expect(problem.errors?.[0]?.path).toBe(path);
      expect((await listNames()).length).toBe(before);
    });
  }

  test("422 for a missing body", async () => {
    await expectProblem(
      await h.call("POST", "/admin/tenants", { token: h.adminToken }),
      422,
      "validation_failed",
    );
    const withType = await h.call("POST", "/admin/tenants", {
      token: h.adminToken,
      headers: { "content-type": "application/json" },
    });
    await expectProblem(withType, 422, "validation_failed");
  });

  test("400 for malformed JSON", async () => {
    for (const raw of ['{"name": "Acme"', "{name: 'x'}", "nope", '{"name": "a",}']) {
      const res = await h.call("POST", "/admin/tenants", {
        token: h.adminToken,
        raw,
        headers: { "content-type": "application/json" },
      });
      await expectProblem(res, 400, "bad_request");
    }
  });
});

describe("GET /admin/tenants", () => {
  test("lists every tenant with tenant_id, name, status, role_count and created_at", async () => {
    const mine = [await h.createTenant(), await h.createTenant()];
    const { status, body } = await h.json("GET", "/admin/tenants?limit=1000", { token: h.adminToken });
    expect(status).toBe(200);
    for (const t of body.tenants) {
      expect(Object.keys(t).sort()).toEqual(["created_at", "name", "role_count", "status", "tenant_id"]);
      expect(t.created_at).toMatch(ISO_MS);
    }
    for (const { tenant_id } of mine) {
      expect(body.tenants.find((t: { tenant_id: string }) => t.tenant_id === tenant_id)).toMatchObject({
        status: "active",
        role_count: 1,
      });
    }
  });

  test("role_count follows the role library", async () => {
    const res = await create({ name: "Counted" });
    const { tenant_id } = await readJson(res);
    const count = async () =>
      (await h.json("GET", "/admin/tenants", { token: h.adminToken })).body.tenants.find(
        (t: { tenant_id: string }) => t.tenant_id === tenant_id,
      ).role_count;
    expect(await count()).toBe(1);
    for (const name of ["one", "two"]) {
      await h.call("POST", `/admin/roles/${tenant_id}`, {
        token: h.adminToken,
        body: { name, permissions: ["memory:read"] },
      });
    }
    expect(await count()).toBe(3);
    await h.call("DELETE", `/admin/roles/${tenant_id}/one`, { token: h.adminToken });
    expect(await count()).toBe(2);
  });
});

describe("GET /admin/tenants paging", () => {
  test("pages walk every tenant once, oldest first, with an opaque cursor", async () => {
    for (let i = 0; i < 5; i++) await create({ name: `Paged ${i}` });
    const all = (await h.json("GET", "/admin/tenants?limit=1000", { token: h.adminToken })).body;
    expect(all.next_cursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const { status, body } = await h.json("GET", `/admin/tenants${query}`, { token: h.adminToken });
      expect(status).toBe(200);
      expect(body.tenants.length).toBeLessThanOrEqual(2);
      seen.push(...body.tenants.map((t: { tenant_id: string }) => t.tenant_id));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.tenants.map((t: { tenant_id: string }) => t.tenant_id));
    expect([...seen].sort()).toEqual(seen);
  });

  test("a bad limit or cursor is a 422", async () => {
    for (const query of ["?limit=0", "?limit=1001", "?limit=x", "?cursor=nope", "?cursor=Li4vLi4vZXRj"]) {
      await expectProblem(
        await h.call("GET", `/admin/tenants${query}`, { token: h.adminToken }),
        422,
        "validation_failed",
      );
    }
  });
});

describe("restart", () => {
  test("tenants, roles and names survive a restart", async () => {
    const res = await create({ name: "Durable Inc" });
    const { tenant_id, token } = await readJson(res);
    await h.call("POST", `/admin/roles/${tenant_id}`, {
      token: h.adminToken,
      body: { name: "keeper", permissions: ["tenant:read", "memory:write:facts"], description: "kept" },
    });
    const before = (await h.json("GET", "/admin/tenants", { token: h.adminToken })).body.tenants;

    await h.restart();

    const after = (await h.json("GET", "/admin/tenants", { token: h.adminToken })).body.tenants;
    expect(after).toEqual(before);
    const roles = (await h.json("GET", `/admin/roles/${tenant_id}`, { token: h.adminToken })).body.roles;
    expect(roles).toContainEqual({
      name: "keeper",
      permissions: ["tenant:read", "memory:write:facts"],
      description: "kept",
      builtin: false,
    });
    // The tenant token minted before the restart still works, and the name is still taken.
    expect((await h.json("GET", "/tenants/me", { token })).body.tenant_name).toBe("Durable Inc");
    await expectProblem(await create({ name: "durable inc" }), 409, "conflict");
    const health = await h.json("GET", `/tenants/${tenant_id}/healthz`, { token });
    expect(health.status).toBe(200);
    expect(health.body.vault.present).toBe(true);
  });
});
