import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { denialsOf, ISO_MS, tokenWithRole, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const clock = new ManualClock(Date.UTC(2026, 10, 21, 9, 0, 0, 0));
let h: Harness;
let tenant: { tenant_id: string; token: string };
let other: { tenant_id: string; token: string };
let memOnly: string;

/** Makes one denial per path, a second apart, waiting for each to land. */
async function deny(paths: string[]): Promise<void> {
  for (const path of paths) {
    clock.advance(1000);
    const before = (await denialsOf(h, tenant.tenant_id)).length;
    expect((await h.call("GET", path, { token: memOnly })).status).toBe(403);
    await waitForDenials(h, tenant.tenant_id, before + 1);
  }
}

/** Four denials of `tenant`'s mem-only token, one per kind of refused path (the newest last). */
function fourDenials(): string[] {
  return [
    "/tenants?first",
    "/admin/tenants",
    `/admin/roles/${tenant.tenant_id}`,
    `/tenants/${other.tenant_id}/healthz`,
  ];
}

/** Two new tenants with no denials yet, and a token of `tenant` whose only role lacks tenant:read. */
async function createTenants(): Promise<void> {
  tenant = await h.createTenant();
  other = await h.createTenant();
  memOnly = await tokenWithRole(h, tenant.tenant_id, "mem-only", ["memory:read"], "agent-audit");
}

beforeAll(async () => {
  h = await startHarness({ clock });
  await createTenants();
});
afterAll(() => h.close());

describe("a denial is durable before its 403", () => {
  test("the audit read right after each 403 already holds it (200 samples, some concurrent)", async () => {
    const probe = await h.createTenant("Audit Probe");
    const token = await tokenWithRole(h, probe.tenant_id, "reader", ["memory:read"], "prober");
    for (let round = 1; round <= 20; round++) {
      const refusals = await Promise.all(
        Array.from({ length: 10 }, () => h.call("POST", "/memory/facts", { token, body: { content: "x" } })),
      );
      expect(refusals.map((r) => r.status)).toEqual(Array(10).fill(403));
      // Read at once, no waiting: every refusal answered so far is in the log.
      expect((await denialsOf(h, probe.tenant_id, 1000)).length).toBe(round * 10);
    }
  });
});

describe("paging the denial log", () => {
  test("cursor pages reach every record past the first 1,000, newest first, each once", async () => {
    const paged = await h.createTenant("Audit Pages");
    const token = await tokenWithRole(h, paged.tenant_id, "reader", ["memory:read"], "pager");
    const total = 1_150;
    for (let i = 0; i < total; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, total - i) }, (_, j) =>
          h.call("POST", "/memory/facts", { token, body: { content: `n${i + j}` } }),
        ),
      );
    }
    const pages: number[] = [];
    const all: Array<{ at: string }> = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=1000${cursor ? `&cursor=${cursor}` : ""}`;
      const { status, body } = await h.json("GET", `/admin/audit/denials/${paged.tenant_id}${query}`, {
        token: h.adminToken,
      });
      expect(status).toBe(200);
      pages.push(body.denials.length);
      all.push(...body.denials);
      cursor = body.next_cursor;
    } while (cursor);
    expect(pages).toEqual([1000, 150]);
    expect(all.length).toBe(total);
  });

  test("a malformed cursor is a 422", async () => {
    for (const cursor of ["nope", "eyJzIjoiYSJ9", "x".repeat(100)]) {
      await expectProblem(
        await h.call("GET", `/admin/audit/denials/${tenant.tenant_id}?cursor=${cursor}`, {
          token: h.adminToken,
        }),
        422,
        "validation_failed",
      );
    }
  });
});

describe("GET /admin/audit/denials/{tenant_id}", () => {
  // Each test reads the denial log of tenants of its own, holding only the denials it made.
  beforeEach(createTenants);

  test("a tenant without denials has an empty list", async () => {
    const { status, body } = await h.json("GET", `/admin/audit/denials/${tenant.tenant_id}`, {
      token: h.adminToken,
    });
    expect(status).toBe(200);
    expect(body).toEqual({ denials: [], next_cursor: null });
  });

  test("lists denials newest first, with every field", async () => {
    await deny(fourDenials());
    const { status, body } = await h.json("GET", `/admin/audit/denials/${tenant.tenant_id}`, {
      token: h.adminToken,
    });
    expect(status).toBe(200);
    expect(body.denials.map((d: { path: string }) => d.path)).toEqual([
      `/tenants/${other.tenant_id}/healthz`,
      `/admin/roles/${tenant.tenant_id}`,
      "/admin/tenants",
      "/tenants",
    ]);
    expect(body.denials.map((d: { permission: string }) => d.permission)).toEqual([
      "tenant:read",
      "admin",
      "admin",
      "tenant:read",
    ]);
    const times = body.denials.map((d: { at: string }) => Date.parse(d.at));
    expect(times).toEqual([...times].sort((x: number, y: number) => y - x));
    for (const d of body.denials) {
      expect(Object.keys(d).sort()).toEqual([
        "at",
        "method",
        "path",
        "permission",
        "reason",
        "roles",
        "sub",
        "tenant_id",
      ]);
      expect(d).toMatchObject({
        tenant_id: tenant.tenant_id,
        sub: "agent-audit",
        roles: ["mem-only"],
        method: "GET",
      });
      expect(d.at).toMatch(ISO_MS);
      expect(d.reason.length).toBeGreaterThan(0);
    }
    expect(body.denials[0].at).toBe(new Date(clock.now()).toISOString());
  });

  test("?limit returns the newest n", async () => {
    await deny(fourDenials());
    const { body } = await h.json("GET", `/admin/audit/denials/${tenant.tenant_id}?limit=2`, {
      token: h.adminToken,
    });
    expect(body.denials.map((d: { path: string }) => d.path)).toEqual([
      `/tenants/${other.tenant_id}/healthz`,
      `/admin/roles/${tenant.tenant_id}`,
    ]);
    const one = await h.json("GET", `/admin/audit/denials/${tenant.tenant_id}?limit=1`, {
      token: h.adminToken,
    });
    expect(one.body.denials).toHaveLength(1);
  });

  test("denials are kept per tenant", async () => {
    await deny(fourDenials());
    expect(await denialsOf(h, tenant.tenant_id)).toHaveLength(4);
    expect(await denialsOf(h, other.tenant_id)).toEqual([]);
  });

  test("the default limit is 100", async () => {
    const have = (await denialsOf(h, tenant.tenant_id)).length;
    await Promise.all(
      Array.from({ length: 101 - have }, () => h.call("GET", "/tenants", { token: memOnly })),
    );
    await waitForDenials(h, tenant.tenant_id, 101);
    const { body } = await h.json("GET", `/admin/audit/denials/${tenant.tenant_id}`, { token: h.adminToken });
    expect(body.denials).toHaveLength(100);
  });

  test("422 for a bad limit", async () => {
    for (const limit of ["0", "-1", "abc", "1.5", "", "1001", "1e4", "99999999"]) {
      const res = await h.call("GET", `/admin/audit/denials/${tenant.tenant_id}?limit=${limit}`, {
        token: h.adminToken,
      });
      await expectProblem(res, 422, "validation_failed");
    }
  });

  test("404 for an unknown or malformed tenant", async () => {
    for (const id of ["01JDB2X6J3KQ5W8Z3M4N7P9R2S", "nope", "..%2F..%2Fetc"]) {
      await expectProblem(
        await h.call("GET", `/admin/audit/denials/${id}`, { token: h.adminToken }),
        404,
        "not_found",
      );
    }
  });

  test("a tenant token may not read even its own audit (403, itself audited)", async () => {
    const before = (await denialsOf(h, tenant.tenant_id, 1000)).length;
    await expectProblem(
      await h.call("GET", `/admin/audit/denials/${tenant.tenant_id}`, { token: tenant.token }),
      403,
      "forbidden",
    );
    const after = await waitForDenials(h, tenant.tenant_id, before + 1);
    expect(after[0]).toMatchObject({
      sub: "tenant-admin",
      roles: ["tenant_admin"],
      path: `/admin/audit/denials/${tenant.tenant_id}`,
      permission: "admin",
    });
  });

  test("the audit survives a restart, and new denials still come first", async () => {
    await deny(fourDenials());
    const before = await denialsOf(h, tenant.tenant_id, 1000);
    await h.restart();
    expect(await denialsOf(h, tenant.tenant_id, 1000)).toEqual(before);
    clock.advance(1000);
    await h.call("GET", "/tenants?after-restart", { token: memOnly });
    const after = await waitForDenials(h, tenant.tenant_id, before.length + 1);
    expect(after[0]!.at).toBe(new Date(clock.now()).toISOString());
    expect(after.slice(1)).toEqual(before);
  });
});
