import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { FILES_PER_TENANT } from "../../src/runtime/open-files.ts";
import { ISO_MS, waitForDenials } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const STARTED_AT = Date.UTC(2026, 10, 21, 10, 15, 30, 123);

/** A runtime of its own, started at STARTED_AT on a clock of its own. */
async function startHealthHarness(): Promise<{ h: Harness; clock: ManualClock }> {
  const clock = new ManualClock(STARTED_AT);
  return { h: await startHarness({ clock, env: { MEMORY_RUNTIME_VERSION: "9.8.7-test" } }), clock };
}

describe("GET /healthz", () => {
  let h: Harness;
  let clock: ManualClock;
  // uptime_s and the tenant counts are runtime-wide: each test reads a runtime no other test has touched.
  beforeEach(async () => {
    ({ h, clock } = await startHealthHarness());
  });
  afterEach(() => h.close());

  test("answers without a token with status, version, started_at, uptime_s and tenants", async () => {
    const { status, body, res } = await h.json("GET", "/healthz");
    expect(status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(body).toEqual({
      status: "ok",
      version: "9.8.7-test",
      started_at: "2026-11-21T10:15:30.123Z",
      uptime_s: 0,
      tenants: 0,
      limits: {
        open_files: expect.any(Number),
        max_open_tenants: expect.any(Number),
        open_tenants: 0,
      },
    });
    expect(body.started_at).toMatch(ISO_MS);
    expect(body.limits.max_open_tenants).toBeGreaterThan(0);
    expect(body.limits.max_open_tenants * FILES_PER_TENANT).toBeLessThan(body.limits.open_files);
  });

  test("uptime_s counts whole seconds since start", async () => {
    clock.advance(61_999);
    expect((await h.json("GET", "/healthz")).body.uptime_s).toBe(61);
    clock.advance(1);
    expect((await h.json("GET", "/healthz")).body.uptime_s).toBe(62);
  });

  test("tenants counts the tenants created", async () => {
    await h.createTenant("Health A");
    await h.createTenant("Health B");
    expect((await h.json("GET", "/healthz")).body.tenants).toBe(2);
  });

  test("ignores a bad Authorization header (no auth on this route)", async () => {
    const res = await h.call("GET", "/healthz", { headers: { authorization: "Bearer garbage" } });
    expect(res.status).toBe(200);
  });
});

describe("GET /tenants/{tenant_id}/healthz", () => {
  let h: Harness;
  let clock: ManualClock;
  let a: { tenant_id: string; token: string };
  let b: { tenant_id: string; token: string };

  beforeAll(async () => {
    ({ h, clock } = await startHealthHarness());
    a = await h.createTenant("Health Own");
    b = await h.createTenant("Health Other");
  });
  afterAll(() => h.close());

  const expected = (tenantId: string) => ({
    tenant_id: tenantId,
    status: "active",
    vault: { present: true, entries: 0 },
    index: {
      vectors: 0,
      pending: 0,
      pending_vectors: 0,
      embedder: { kind: "hash", state: "idle", in_flight: 0, embedded: 0, failures: 0 },
    },
    dead_letters: 0,
    connectors: {},
  });

  test("a tenant token sees its own tenant's health", async () => {
    const { status, body } = await h.json("GET", `/tenants/${a.tenant_id}/healthz`, { token: a.token });
    expect(status).toBe(200);
    expect(body).toEqual(expected(a.tenant_id));
  });

  test("the admin sees any tenant's health", async () => {
    const { status, body } = await h.json("GET", `/tenants/${b.tenant_id}/healthz`, { token: h.adminToken });
    expect(status).toBe(200);
    expect(body).toEqual(expected(b.tenant_id));
  });

  test("a tenant token for another tenant is 403, and the denial is recorded", async () => {
    const res = await h.call("GET", `/tenants/${b.tenant_id}/healthz`, { token: a.token });
    const problem = await expectProblem(res, 403, "forbidden");
    expect(JSON.stringify(problem)).not.toContain("Health Other");
    const [denial] = await waitForDenials(h, a.tenant_id, 1);
    expect(denial).toEqual({
      at: new Date(clock.now()).toISOString(),
      tenant_id: a.tenant_id,
      sub: "tenant-admin",
      roles: ["tenant_admin"],
      method: "GET",
      path: `/tenants/${b.tenant_id}/healthz`,
      permission: "tenant:read",
      reason: expect.any(String),
    });
  });

  test("a tenant token gets 403 for any other well-formed tenant id, existing or not (no existence oracle)", async () => {
    const existing = await h.call("GET", `/tenants/${b.tenant_id}/healthz`, { token: a.token });
    const missing = await h.call("GET", "/tenants/01JDB2X6J3KQ5W8Z3M4N7P9R2S/healthz", { token: a.token });
    const one = await expectProblem(existing, 403, "forbidden");
    const two = await expectProblem(missing, 403, "forbidden");
    expect(one.detail).toBe(two.detail);
  });

  test("an unknown or malformed tenant id is 404 for the operator", async () => {
    for (const id of [
      "01JDB2X6J3KQ5W8Z3M4N7P9R2S",
      "not-a-ulid",
      a.tenant_id.toLowerCase(),
      "..%2F..%2Fetc",
    ]) {
      await expectProblem(
        await h.call("GET", `/tenants/${id}/healthz`, { token: h.adminToken }),
        404,
        "not_found",
      );
    }
  });

  test("without a token it is 401", async () => {
    await expectProblem(await h.call("GET", `/tenants/${a.tenant_id}/healthz`), 401, "unauthorized");
  });
});
