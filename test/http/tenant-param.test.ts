import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { type Caller, requestInfo } from "../../src/auth/caller.ts";
import { Forbidden } from "../../src/errors/domain-errors.ts";
import { errorsPlugin } from "../../src/http/errors.ts";
import { type TenantParamOption, tenantParamPlugin } from "../../src/http/tenant-param.ts";
import type { Tenant } from "../../src/models/tenant.ts";
import { tenantRecord } from "../fakes/system-records.ts";
import { expectProblem } from "../helpers/problem.ts";

const A = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const B = "01JDB2X6J3KQ5W8Z3M4N7P9R2T";
const UNKNOWN = "01JDB2X6J3KQ5W8Z3M4N7P9R2V";

/**
 * The plugin on a small app: tenants A and B exist; every lookup and every access check is
 * counted; `x-tenant` names the caller's tenant (`operator`: the operator).
 */
function world() {
  const known = new Map([
    [A, tenantRecord(A, "Acme")],
    [B, tenantRecord(B, "Beta")],
  ]);
  const lookups: string[] = [];
  const refusals: Array<{ status: number; tenant: string | undefined }> = [];
  const accessChecks: string[] = [];
  const tenants = {
    get: (id: string): Tenant | undefined => {
      lookups.push(id);
      return known.get(id);
    },
  };
  const guard = {
    requireTenantAccess: (principal: Caller["principal"], tenantId: string) => {
      accessChecks.push(tenantId);
      if (!principal.admin && principal.tenantId !== tenantId)
        throw new Forbidden("token belongs to another tenant", "tenant:read");
    },
  };
  const callerPlugin = new Elysia({ name: "test-caller" }).macro({
    caller: {
      resolve: ({ request }: { request: Request }): Caller => {
        const tenant = request.headers.get("x-tenant") ?? "";
        const principal = {
          sub: "t",
          tenantId: tenant,
          roles: [],
          admin: tenant === "operator",
          expiresAt: "",
        };
        return { principal, req: requestInfo(request) };
      },
    },
  });
  const counted: TenantParamOption = {
    scope: "any",
    onRefusal: (error, params) => refusals.push({ status: error.status, tenant: params.tenant_id }),
  };
  const routes = new Elysia()
    .use(callerPlugin)
    .use(tenantParamPlugin(tenants, guard))
    .get("/any/:tenant_id", ({ tenant }) => tenant, { tenant: "any" })
    .get("/own/:tenant_id", ({ tenant }) => tenant, { caller: true, tenant: "own" })
    .get("/counted/:tenant_id", ({ tenant }) => tenant, { tenant: counted });
  const app = new Elysia().use(errorsPlugin(() => {})).use(routes);
  const get = (path: string, tenant?: string) =>
    app.handle(new Request(`http://localhost${path}`, { headers: tenant ? { "x-tenant": tenant } : {} }));
  return { get, lookups, refusals, accessChecks };
}

describe("the {tenant_id} plugin", () => {
  test("hands the handler the tenant, looked up once", async () => {
    const w = world();
    const res = await w.get(`/any/${A}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(tenantRecord(A, "Acme"));
    expect(w.lookups).toEqual([A]);
  });

  test("a malformed id is a 404 before anything is looked up", async () => {
    const w = world();
    const problem = await expectProblem(await w.get("/any/..%2F..%2Fetc"), 404, "not_found");
    expect(problem.detail).toBe("no tenant (malformed)");
    expect(await w.get("/own/not-a-ulid", A).then((r) => r.status)).toBe(404);
    expect(w.lookups).toEqual([]);
    expect(w.accessChecks).toEqual([]);
  });

  test("an unknown tenant is a 404 naming the id", async () => {
    const w = world();
    const problem = await expectProblem(await w.get(`/any/${UNKNOWN}`), 404, "not_found");
    expect(problem.detail).toBe(`no tenant ${UNKNOWN}`);
  });

  test("own: another tenant's id is a 403 whether or not it exists, and its existence is not looked up", async () => {
    const w = world();
    await expectProblem(await w.get(`/own/${B}`, A), 403, "forbidden");
    await expectProblem(await w.get(`/own/${UNKNOWN}`, A), 403, "forbidden");
    expect(w.accessChecks).toEqual([B, UNKNOWN]);
    expect(w.lookups).toEqual([]);
  });

  test("own: the caller's own tenant, and any existing one for the operator", async () => {
    const w = world();
    expect((await w.get(`/own/${A}`, A)).status).toBe(200);
    expect((await w.get(`/own/${B}`, "operator")).status).toBe(200);
    await expectProblem(await w.get(`/own/${UNKNOWN}`, "operator"), 404, "not_found");
  });

  test("a route's refusal hook is told of each refusal, and only of refusals", async () => {
    const w = world();
    expect((await w.get(`/counted/${A}`)).status).toBe(200);
    expect((await w.get(`/counted/${UNKNOWN}`)).status).toBe(404);
    expect((await w.get("/counted/nope")).status).toBe(404);
    expect(w.refusals).toEqual([
      { status: 404, tenant: UNKNOWN },
      { status: 404, tenant: "nope" },
    ]);
  });
});
