import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** A role the tenant does not define is named: in a token's 403, in a role list's 422 (issue 36). */

let h: Harness;
let tenantId: string;
const NAME = "Acme unknown roles";

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenantId } = await h.createTenant(NAME));
  const role = await h.call("POST", `/admin/roles/${tenantId}`, {
    token: h.adminToken,
    body: { name: "reader", permissions: ["memory:read:facts"] },
  });
  expect(role.status).toBe(201);
});
afterAll(() => h.close());

describe("a token naming a role the tenant does not define", () => {
  test("the 403 names the unknown role and the tenant, and the denial records the same reason", async () => {
    const token = await h.mint(tenantId, ["auditor"], "unknown-role-agent");
    const res = await h.call("GET", "/memory/facts", { token });
    const problem = await expectProblem(res, 403, "forbidden");
    const reason = `token role "auditor" is not defined in tenant ${JSON.stringify(NAME)}; no role grants memory:read:facts`;
    expect(problem.detail).toBe(reason);
    // The 403 is answered only once its denial is durable: it is there when the answer is.
    const denials = await h.json("GET", `/admin/audit/denials/${tenantId}`, { token: h.adminToken });
    const mine = denials.body.denials.filter((d: { sub: string }) => d.sub === "unknown-role-agent");
    expect(mine.map((d: { reason: string; roles: string[] }) => [d.reason, d.roles])).toEqual([
      [reason, ["auditor"]],
    ]);
  });

  test("beside a defined role, only the unknown one is named", async () => {
    const token = await h.mint(tenantId, ["reader", "auditor", "viewer"]);
    expect((await h.call("GET", "/memory/facts", { token })).status).toBe(200);
    const res = await h.call("GET", "/memory/decisions", { token });
    const problem = await expectProblem(res, 403, "forbidden");
    expect(problem.detail).toBe(
      `token roles "auditor", "viewer" are not defined in tenant ${JSON.stringify(NAME)}; no role grants memory:read:decisions`,
    );
  });

  test("a search refuses with the same note", async () => {
    const token = await h.mint(tenantId, ["auditor"]);
    const search = await h.call("POST", "/memory/search", { token, body: { query: "x" } });
    expect((await expectProblem(search, 403, "forbidden")).detail).toStartWith(
      'token role "auditor" is not defined in tenant',
    );
  });

  test("a token whose roles are all defined gets the plain reason", async () => {
    const token = await h.mint(tenantId, ["reader"]);
    const res = await h.call("GET", "/memory/decisions", { token });
    expect((await expectProblem(res, 403, "forbidden")).detail).toBe("no role grants memory:read:decisions");
  });
});

describe("a role list naming a role the tenant does not define", () => {
  test("minting a token: 422 naming it and the roles the library holds", async () => {
    const res = await h.call("POST", `/admin/jwt/${tenantId}`, {
      token: h.adminToken,
      body: { roles: ["reader", "auditor"] },
    });
    const problem = await expectProblem(res, 422, "validation_failed");
    expect(problem.detail).toBe(
      `unknown role(s) "auditor": not defined in tenant ${JSON.stringify(NAME)}; its roles are reader, tenant_admin`,
    );
    expect(problem.errors).toEqual([
      { path: "/roles", message: 'unknown role(s) "auditor"; must be one of reader, tenant_admin' },
    ]);
  });
});
