import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readJson, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let tenant: { tenant_id: string; token: string };
const BUILTIN = {
  name: "tenant_admin",
  permissions: ["*"],
  description: expect.any(String),
  builtin: true,
};

beforeAll(async () => {
  h = await startHarness();
  tenant = await h.createTenant("Roles Co");
});
afterAll(() => h.close());

const put = (body: unknown, tenantId = tenant.tenant_id) =>
  h.call("POST", `/admin/roles/${tenantId}`, { token: h.adminToken, body });
const list = async (tenantId = tenant.tenant_id) =>
  (await h.json("GET", `/admin/roles/${tenantId}`, { token: h.adminToken })).body.roles;
const del = (name: string, tenantId = tenant.tenant_id) =>
  h.call("DELETE", `/admin/roles/${tenantId}/${name}`, { token: h.adminToken });

describe("GET/POST /admin/roles/{tenant_id}", () => {
  test("a new tenant's library holds only the built-in tenant_admin", async () => {
    const fresh = await h.createTenant();
    const { status, body } = await h.json("GET", `/admin/roles/${fresh.tenant_id}`, { token: h.adminToken });
    expect(status).toBe(200);
    expect(body).toEqual({ roles: [BUILTIN] });
  });

  test("201 when a role is created, 200 when it is replaced", async () => {
    const { tenant_id } = await h.createTenant();
    const created = await put(
      { name: "agent", permissions: ["memory:read", "memory:write"], description: "Agents" },
      tenant_id,
    );
    expect(created.status).toBe(201);
    expect(await readJson(created)).toEqual({
      name: "agent",
      permissions: ["memory:read", "memory:write"],
      description: "Agents",
      builtin: false,
    });
    const replaced = await put({ name: "agent", permissions: ["memory:search"] }, tenant_id);
    expect(replaced.status).toBe(200);
    expect(await readJson(replaced)).toEqual({
      name: "agent",
      permissions: ["memory:search"],
      description: "",
      builtin: false,
    });
    expect(await list(tenant_id)).toEqual([
      BUILTIN,
      { name: "agent", permissions: ["memory:search"], description: "", builtin: false },
    ]);
  });

  test("every permission form of the contract is accepted; duplicates are merged", async () => {
    const permissions = [
      "*",
      "memory:*",
      "tenant:read",
      "memory:read",
      "memory:write:decisions",
      "memory:search:relationships",
    ];
    const res = await put({ name: "everything", permissions: [...permissions, "tenant:read"] });
    expect(res.status).toBe(201);
    expect((await readJson(res)).permissions).toEqual(permissions);
  });

  test("roles of one tenant are not visible in another", async () => {
    expect((await put({ name: "only-here", permissions: ["memory:read"] })).status).toBe(201);
    const other = await h.createTenant();
    expect(await list(other.tenant_id)).toEqual([BUILTIN]);
  });

  const invalid: Array<[string, unknown]> = [
    ["a missing name", { permissions: [] }],
    ["missing permissions", { name: "x" }],
    ["an upper-case name", { name: "Agent", permissions: [] }],
    ["a name starting with a digit", { name: "1agent", permissions: [] }],
    ["a name over 64 characters", { name: `a${"b".repeat(64)}`, permissions: [] }],
    ["a name with a slash", { name: "a/b", permissions: [] }],
    ["an unknown permission", { name: "x", permissions: ["memory:delete"] }],
    ["an unknown category", { name: "x", permissions: ["memory:write:secrets"] }],
    ["admin as a permission", { name: "x", permissions: ["admin"] }],
    ["permissions not a list", { name: "x", permissions: "memory:read" }],
    ["a numeric description", { name: "x", permissions: [], description: 5 }],
    ["an unknown field", { name: "x", permissions: [], builtin: true }],
    ["replacing the built-in tenant_admin", { name: "tenant_admin", permissions: ["memory:read"] }],
  ];
  for (const [what, body] of invalid) {
    test(`422 for ${what}`, async () => {
      const before = await list();
      await expectProblem(await put(body), 422, "validation_failed");
      expect(await list()).toEqual(before);
    });
  }

  test("400 for malformed JSON", async () => {
    const res = await h.call("POST", `/admin/roles/${tenant.tenant_id}`, {
      token: h.adminToken,
      raw: "{",
      headers: { "content-type": "application/json" },
    });
    await expectProblem(res, 400, "bad_request");
  });

  test("404 for an unknown or malformed tenant", async () => {
    await expectProblem(
      await put({ name: "x", permissions: [] }, "01JDB2X6J3KQ5W8Z3M4N7P9R2S"),
      404,
      "not_found",
    );
    await expectProblem(await put({ name: "x", permissions: [] }, "bogus"), 404, "not_found");
    await expectProblem(
      await h.call("GET", "/admin/roles/01JDB2X6J3KQ5W8Z3M4N7P9R2S", { token: h.adminToken }),
      404,
      "not_found",
    );
  });
});

describe("DELETE /admin/roles/{tenant_id}/{role_name}", () => {
  test("200 {deleted} and the role is gone", async () => {
    await put({ name: "temp", permissions: ["memory:read"] });
    const res = await del("temp");
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({ deleted: "temp" });
    expect((await list()).map((r: { name: string }) => r.name)).not.toContain("temp");
  });

  test("404 for a role that does not exist (or no longer exists)", async () => {
    await expectProblem(await del("never-existed"), 404, "not_found");
    await put({ name: "once", permissions: [] });
    expect((await del("once")).status).toBe(200);
    await expectProblem(await del("once"), 404, "not_found");
  });

  test("404 for a malformed role name, an unknown tenant and a malformed tenant", async () => {
    await expectProblem(await del("Not%20A%20Role"), 404, "not_found");
    await expectProblem(await del("..%2F..%2Fetc"), 404, "not_found");
    await expectProblem(await del("agent", "01JDB2X6J3KQ5W8Z3M4N7P9R2S"), 404, "not_found");
    await expectProblem(await del("agent", "bogus"), 404, "not_found");
  });

  test("the built-in tenant_admin cannot be deleted", async () => {
    const problem = await expectProblem(await del("tenant_admin"), 422, "validation_failed");
    expect(problem.detail).toContain("tenant_admin");
    expect(await list()).toContainEqual(BUILTIN);
    // And tenant_admin tokens still work.
    expect((await h.call("GET", "/tenants", { token: tenant.token })).status).toBe(200);
  });

  test("a deleted role's live token loses its permission at once; re-creating the role restores it", async () => {
    await put({ name: "reader", permissions: ["tenant:read"] });
    const minted = await h.json("POST", `/admin/jwt/${tenant.tenant_id}`, {
      token: h.adminToken,
      body: { roles: ["reader"], sub: "reader-1" },
    });
    const token = minted.body.token;
    expect((await h.call("GET", "/tenants", { token })).status).toBe(200);
    expect((await del("reader")).status).toBe(200);
    await expectProblem(await h.call("GET", "/tenants", { token }), 403, "forbidden");
    const [denial] = await waitForDenials(h, tenant.tenant_id, 1);
    expect(denial).toMatchObject({
      sub: "reader-1",
      roles: ["reader"],
      permission: "tenant:read",
      path: "/tenants",
    });

    await put({ name: "reader", permissions: ["tenant:read"] });
    expect((await h.call("GET", "/tenants", { token })).status).toBe(200);
  });

  test("narrowing a role's permissions also applies at once", async () => {
    await put({ name: "shifty", permissions: ["tenant:read"] });
    const token = await h.mint(tenant.tenant_id, ["shifty"]);
    expect((await h.call("GET", "/tenants", { token })).status).toBe(200);
    expect((await put({ name: "shifty", permissions: ["memory:read"] })).status).toBe(200);
    await expectProblem(await h.call("GET", "/tenants", { token }), 403, "forbidden");
  });
});
