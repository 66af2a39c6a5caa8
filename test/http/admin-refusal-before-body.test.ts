/**
 * Regression (found by the fuzz, test/fuzz/): an admin route read a tenant token's body before
 * refusing it, so a malformed or oversized body answered 400 or 413, and the probe of an admin
 * route by a tenant was never recorded as a denial. The refusal now comes first: 403, audited once,
 * whatever the body; the operator's own malformed bodies are still 400 and 413.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { denialsOf } from "../helpers/api.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
let tenant: { tenant_id: string; token: string };
beforeAll(async () => {
  h = await startHarness();
  tenant = await h.createTenant("Admin Probe");
});
afterAll(() => h.close());

const JSON_TYPE = { "content-type": "application/json" };
const TWO_MIB = "x".repeat(2 * 1024 * 1024);

const PROBES = [
  { name: "malformed JSON", path: "/admin/tenants", raw: "{not json", headers: JSON_TYPE },
  { name: "a body over the limit", path: "/admin/tenants", raw: TWO_MIB, headers: JSON_TYPE },
  {
    name: "invalid UTF-8",
    path: "/admin/roles/{own}",
    raw: new Uint8Array([0x7b, 0xff, 0x7d]),
    headers: JSON_TYPE,
  },
  {
    name: "an import that is not NDJSON",
    path: "/admin/tenants/{own}/import",
    raw: "{bad",
    headers: JSON_TYPE,
  },
  {
    name: "a body on a route that takes none",
    path: "/admin/tenants/{own}/suspend",
    raw: "{bad",
    headers: JSON_TYPE,
  },
];

test.each(PROBES.map((p) => [p.name, p] as const))(
  "a tenant token with %s → 403, recorded once",
  async (_name, probe) => {
    const path = probe.path.replace("{own}", tenant.tenant_id);
    const before = (await denialsOf(h, tenant.tenant_id)).length;
    const res = await h.call("POST", path, { token: tenant.token, raw: probe.raw, headers: probe.headers });
    await expectProblem(res, 403, "forbidden");
    const denials = await denialsOf(h, tenant.tenant_id);
    expect(denials.length).toBe(before + 1);
    expect(denials[0]).toMatchObject({ method: "POST", path, permission: "admin" });
  },
);

test("the operator's malformed and oversized bodies are still 400 and 413", async () => {
  const bad = await h.call("POST", "/admin/tenants", {
    token: h.adminToken,
    raw: "{not json",
    headers: JSON_TYPE,
  });
  await expectProblem(bad, 400, "bad_request");
  const big = await h.call("POST", "/admin/tenants", {
    token: h.adminToken,
    raw: TWO_MIB,
    headers: JSON_TYPE,
  });
  await expectProblem(big, 413, "payload_too_large");
});
