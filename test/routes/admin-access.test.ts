import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DenialRecord, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

// The data dir is nested so that anything escaping it (../) would show up in `parent`.
const parent = mkdtempSync(join(tmpdir(), "mrt-access-"));
const dataDir = join(parent, "data");
mkdirSync(dataDir);

let h: Harness;
let a: { tenant_id: string; token: string };
let b: { tenant_id: string; token: string };

beforeAll(async () => {
  h = await startHarness({ dataDir });
  a = await h.createTenant("Access A");
  b = await h.createTenant("Access B");
});
afterAll(async () => {
  await h.close();
  rmSync(parent, { recursive: true, force: true });
});

function adminRoutes(target: string): Array<{ method: string; path: string; body?: unknown }> {
  return [
    { method: "GET", path: "/admin/tenants" },
    { method: "POST", path: "/admin/tenants", body: { name: "Sneaky Co" } },
    { method: "POST", path: `/admin/jwt/${target}`, body: { roles: ["tenant_admin"], sub: "escalated" } },
    { method: "GET", path: `/admin/roles/${target}` },
    { method: "POST", path: `/admin/roles/${target}`, body: { name: "sneaky", permissions: ["*"] } },
    { method: "DELETE", path: `/admin/roles/${target}/tenant_admin` },
    { method: "GET", path: `/admin/audit/denials/${target}` },
  ];
}

describe("admin routes refuse tenant tokens", () => {
  test("403 on every admin route, for its own tenant and another, each one audited", async () => {
    const calls = [...adminRoutes(a.tenant_id), ...adminRoutes(b.tenant_id)];
    for (const r of calls) {
      const res = await h.call(r.method, r.path, { token: a.token, body: r.body });
      await expectProblem(res, 403, "forbidden");
    }
    const denials = await waitForDenials(h, a.tenant_id, calls.length);
    expect(denials).toHaveLength(calls.length);
    // Newest first: the reverse of the calls.
    const expected: Partial<DenialRecord>[] = calls.reverse().map((r) => ({
      tenant_id: a.tenant_id,
      sub: "tenant-admin",
      roles: ["tenant_admin"],
      method: r.method,
      path: r.path,
      permission: "admin",
    }));
    denials.forEach((d, i) => {
      expect(d).toMatchObject(expected[i]!);
      expect(d.reason).toMatch(/admin/);
    });
    // Nothing the refused calls asked for happened.
    const names = (await h.json("GET", "/admin/tenants", { token: h.adminToken })).body.tenants.map(
      (t: { name: string }) => t.name,
    );
    expect(names).not.toContain("Sneaky Co");
    const roles = (await h.json("GET", `/admin/roles/${a.tenant_id}`, { token: h.adminToken })).body.roles;
    expect(roles.map((r: { name: string }) => r.name)).toEqual(["tenant_admin"]);
  });

  test("403 (not 422) for a tenant token even when the body is invalid, and it is audited", async () => {
    const before = (await waitForDenials(h, b.tenant_id, 0)).length;
    await expectProblem(
      await h.call("POST", "/admin/tenants", { token: b.token, body: {} }),
      403,
      "forbidden",
    );
    await expectProblem(
      await h.call("POST", `/admin/roles/${b.tenant_id}`, { token: b.token, body: { name: 1 } }),
      403,
      "forbidden",
    );
    const after = await waitForDenials(h, b.tenant_id, before + 2);
    expect(after[0]).toMatchObject({
      method: "POST",
      path: `/admin/roles/${b.tenant_id}`,
      permission: "admin",
    });
  });
});

describe("malformed and unknown tenant ids are 404 and never touch the disk", () => {
  const malformed = [
    "..%2F..%2Fetc",
    "..%2f..%2fetc",
    "%2E%2E%2F%2E%2E%2Fetc",
    "..%5C..%5Cetc",
    "not-a-ulid",
    "01jdb2x6j3kq5w8z3m4n7p9r2s",
    "01JDB2X6J3KQ5W8Z3M4N7P9R2",
    "01JDB2X6J3KQ5W8Z3M4N7P9R2SX",
    "01JDB2X6J3KQ5W8Z3M4N7P9R2I",
    "01JDB2X6J3KQ5W8Z3M4N7P9R2%00",
    "00000000000000000000000000",
  ];
  const unknown = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";

  function tenantRoutes(id: string): Array<{ method: string; path: string; body?: unknown }> {
    return [
      { method: "GET", path: `/tenants/${id}/healthz` },
      { method: "POST", path: `/admin/jwt/${id}`, body: { roles: ["tenant_admin"] } },
      { method: "GET", path: `/admin/roles/${id}` },
      { method: "POST", path: `/admin/roles/${id}`, body: { name: "agent", permissions: [] } },
      { method: "DELETE", path: `/admin/roles/${id}/agent` },
      { method: "GET", path: `/admin/audit/denials/${id}` },
    ];
  }

  test("every route with a {tenant_id} answers 404", async () => {
    for (const id of [...malformed, unknown]) {
      for (const r of tenantRoutes(id)) {
        const res = await h.call(r.method, r.path, { token: h.adminToken, body: r.body });
        const problem = await expectProblem(res, 404, "not_found");
        expect(problem.detail).not.toContain("..");
      }
    }
  });

  test("dot-segment paths are resolved by URL parsing and reach no tenant route (404)", async () => {
    const paths = [
      "/tenants/../../etc/healthz",
      "/admin/roles/../../etc",
      "/admin/roles/./../../../etc/passwd",
      "/admin/roles/%2E%2E/%2E%2E/etc",
      "/admin/audit/denials/../../../etc",
    ];
    for (const path of paths) {
      await expectProblem(await h.call("GET", path, { token: h.adminToken }), 404, "not_found");
    }
  });

  test("no new directory appeared in or beside the data dir", () => {
    expect(readdirSync(parent)).toEqual(["data"]);
    expect(readdirSync(dataDir).sort()).toEqual(["system", "tenants"]);
    expect(readdirSync(join(dataDir, "tenants")).sort()).toEqual([a.tenant_id, b.tenant_id].sort());
  });
});
