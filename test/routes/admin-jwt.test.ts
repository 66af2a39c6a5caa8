import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodePayload, ISO_MS, readJson } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let tenant: { tenant_id: string; token: string };

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.createTenant("Jwt Co");
  for (const [name, permissions] of [
    ["agent", ["memory:read", "memory:write"]],
    ["lister", ["tenant:read"]],
  ] as const) {
    const res = await h.call("POST", `/admin/roles/${tenant.tenant_id}`, {
      token: h.adminToken,
      body: { name, permissions: [...permissions] },
    });
    expect(res.status).toBe(201);
  }
});
afterAll(() => h.close());

const mint = (tenantId: string, body: unknown) =>
  h.call("POST", `/admin/jwt/${tenantId}`, { token: h.adminToken, body });

describe("POST /admin/jwt/{tenant_id}", () => {
  test("201 with token, tenant_id, sub, roles, ttl_seconds and expires_at; the token carries them", async () => {
    const res = await mint(tenant.tenant_id, {
      roles: ["agent", "lister"],
      sub: "agent-7",
      ttl_seconds: 900,
    });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(Object.keys(body).sort()).toEqual([
      "expires_at",
      "roles",
      "sub",
      "tenant_id",
      "token",
      "ttl_seconds",
    ]);
    expect(body).toMatchObject({
      tenant_id: tenant.tenant_id,
      sub: "agent-7",
      roles: ["agent", "lister"],
      ttl_seconds: 900,
    });
    expect(body.expires_at).toMatch(ISO_MS);

    const header = JSON.parse(Buffer.from(body.token.split(".")[0], "base64url").toString());
    expect(header.alg).toBe("HS256");
    const claims = decodePayload(body.token);
    expect(claims).toMatchObject({ sub: "agent-7", tenant_id: tenant.tenant_id, roles: ["agent", "lister"] });
    expect(claims.admin).toBeUndefined();
    expect(claims.exp - claims.iat).toBe(900);
    expect(typeof claims.jti).toBe("string");
    expect(Date.parse(body.expires_at)).toBe(claims.exp * 1000);
    expect(Math.abs(claims.iat * 1000 - Date.now())).toBeLessThan(5000);

    // The minted token works, with exactly the roles it was given.
    const me = await h.json("GET", "/tenants/me", { token: body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      sub: "agent-7",
      roles: ["agent", "lister"],
      tenant_id: tenant.tenant_id,
      admin: false,
    });
    expect(me.body.expires_at).toBe(body.expires_at);
    expect((await h.call("GET", "/tenants", { token: body.token })).status).toBe(200);
    await expectProblem(await h.call("GET", "/admin/tenants", { token: body.token }), 403, "forbidden");
  });

  test("sub and ttl default to `agent` and the configured lifetime; duplicate roles are merged", async () => {
    const res = await mint(tenant.tenant_id, { roles: ["agent", "agent"] });
    expect(res.status).toBe(201);
    const body = await readJson(res);
    expect(body).toMatchObject({ sub: "agent", roles: ["agent"], ttl_seconds: 3600 });
    expect(decodePayload(body.token).roles).toEqual(["agent"]);
  });

  test("a token without tenant:read cannot list tenants", async () => {
    const { token } = await readJson(mint(tenant.tenant_id, { roles: ["agent"] }));
    await expectProblem(await h.call("GET", "/tenants", { token }), 403, "forbidden");
  });

  test("the built-in tenant_admin role may be minted", async () => {
    expect((await mint(tenant.tenant_id, { roles: ["tenant_admin"], sub: "boss" })).status).toBe(201);
  });

  test("422 when a role does not exist in the tenant's library", async () => {
    const problem = await expectProblem(
      await mint(tenant.tenant_id, { roles: ["agent", "ghost"] }),
      422,
      "validation_failed",
    );
    expect(problem.detail).toContain("ghost");
  });

  test("422 when the role exists only in another tenant's library", async () => {
    const other = await h.createTenant("Jwt Other");
    await expectProblem(await mint(other.tenant_id, { roles: ["agent"] }), 422, "validation_failed");
  });

  const invalid: Array<[string, unknown]> = [
    ["no body fields", {}],
    ["an empty roles list", { roles: [] }],
    ["roles not a list", { roles: "agent" }],
    ["a malformed role name", { roles: ["Agent!"] }],
    ["ttl_seconds 0", { roles: ["agent"], ttl_seconds: 0 }],
    ["a negative ttl", { roles: ["agent"], ttl_seconds: -5 }],
    ["a fractional ttl", { roles: ["agent"], ttl_seconds: 1.5 }],
    ["a string ttl", { roles: ["agent"], ttl_seconds: "900" }],
    ["an empty sub", { roles: ["agent"], sub: "" }],
    ["a numeric sub", { roles: ["agent"], sub: 7 }],
    ["an unknown field", { roles: ["agent"], admin: true }],
  ];
  for (const [what, body] of invalid) {
    test(`422 for ${what}`, async () => {
      await expectProblem(await mint(tenant.tenant_id, body), 422, "validation_failed");
    });
  }

  test("404 for an unknown tenant and for a malformed tenant id", async () => {
    await expectProblem(await mint("01JDB2X6J3KQ5W8Z3M4N7P9R2S", { roles: ["agent"] }), 404, "not_found");
    await expectProblem(await mint("nope", { roles: ["agent"] }), 404, "not_found");
    await expectProblem(await mint("00000000000000000000000000", { roles: ["agent"] }), 404, "not_found");
  });
});
