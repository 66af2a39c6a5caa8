import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ISO_MS, tokenWithRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

type Tenant = { tenant_id: string; token: string };
let h: Harness;
let a: Tenant;
let b: Tenant;

/** A runtime of its own holding exactly two tenants, Alpha (a) and Beta (b). */
async function startWithTwoTenants(): Promise<void> {
  h = await startHarness();
  a = await h.createTenant("Tenants Alpha");
  b = await h.createTenant("Tenants Beta");
}

describe("GET /tenants", () => {
  // The listing is runtime-wide and shows each tenant's role count: each test lists a runtime whose
  // tenants and roles no other test has added to.
  beforeEach(startWithTwoTenants);
  afterEach(() => h.close());

  test("a tenant token sees only its own tenant, with the contract's item shape", async () => {
    const { status, body } = await h.json("GET", "/tenants", { token: a.token });
    expect(status).toBe(200);
    expect(body.tenants).toHaveLength(1);
    const [item] = body.tenants;
    expect(Object.keys(item).sort()).toEqual(["created_at", "name", "role_count", "status", "tenant_id"]);
    expect(item).toMatchObject({
      tenant_id: a.tenant_id,
      name: "Tenants Alpha",
      status: "active",
      role_count: 1,
    });
    expect(item.created_at).toMatch(ISO_MS);
    expect(JSON.stringify(body)).not.toContain(b.tenant_id);
  });

  test("the admin sees every tenant", async () => {
    const { status, body } = await h.json("GET", "/tenants", { token: h.adminToken });
    expect(status).toBe(200);
    const ids = body.tenants.map((t: { tenant_id: string }) => t.tenant_id).sort();
    expect(ids).toEqual([a.tenant_id, b.tenant_id].sort());
  });

  test("a role holding tenant:read may list; one without it is 403 and audited", async () => {
    const reader = await tokenWithRole(h, a.tenant_id, "tenant-reader", ["tenant:read"]);
    expect((await h.json("GET", "/tenants", { token: reader })).body.tenants).toHaveLength(1);

    const memOnly = await tokenWithRole(h, a.tenant_id, "mem-reader", ["memory:read"], "agent-mem");
    const res = await h.call("GET", "/tenants?x=1", {
      token: memOnly,
      headers: { "x-request-id": "deny-1" },
    });
    const problem = await expectProblem(res, 403, "forbidden");
    expect(problem.request_id).toBe("deny-1");
    const denials = await waitForDenials(h, a.tenant_id, 1);
    expect(denials[0]).toEqual({
      at: expect.stringMatching(ISO_MS),
      tenant_id: a.tenant_id,
      sub: "agent-mem",
      roles: ["mem-reader"],
      method: "GET",
      path: "/tenants",
      permission: "tenant:read",
      reason: expect.stringContaining("tenant:read"),
    });
  });

  test("a token whose roles are all unknown holds no permission", async () => {
    const ghost = await h.mint(a.tenant_id, ["ghost-role"], "ghost");
    await expectProblem(await h.call("GET", "/tenants", { token: ghost }), 403, "forbidden");
  });
});

describe("GET /tenants/me", () => {
  beforeAll(startWithTwoTenants);
  afterAll(() => h.close());

  test("describes a tenant token", async () => {
    const { status, body } = await h.json("GET", "/tenants/me", { token: a.token });
    expect(status).toBe(200);
    expect(body).toEqual({
      tenant_id: a.tenant_id,
      tenant_name: "Tenants Alpha",
      sub: "tenant-admin",
      roles: ["tenant_admin"],
      admin: false,
      expires_at: expect.stringMatching(ISO_MS),
    });
    const expiresIn = Date.parse(body.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(3590_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
  });

  test("needs no permission beyond a valid token", async () => {
    const bare = await h.mint(b.tenant_id, [], "bare-agent");
    const { status, body } = await h.json("GET", "/tenants/me", { token: bare });
    expect(status).toBe(200);
    expect(body).toMatchObject({ tenant_id: b.tenant_id, sub: "bare-agent", roles: [], admin: false });
  });

  test("describes the admin token", async () => {
    const { status, body } = await h.json("GET", "/tenants/me", { token: h.adminToken });
    expect(status).toBe(200);
    expect(body).toMatchObject({ tenant_id: OPERATOR_TENANT_ID, sub: "operator", admin: true });
  });
});
