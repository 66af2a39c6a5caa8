import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPair, SignJWT, UnsecuredJWT } from "jose";
import { bearerToken } from "../../src/auth/authenticator.ts";
import { requestInfo } from "../../src/auth/caller.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { craftJwt, nowSeconds } from "../helpers/jwt.ts";
import { expectProblem } from "../helpers/problem.ts";

const key = new TextEncoder().encode(TEST_SECRET);
const UNKNOWN_TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
/** RFC 6750 challenges (docs/auth.md): bare when no token was sent, invalid_token when one was refused. */
const NO_TOKEN = 'Bearer realm="memory-runtime"';
const BAD_TOKEN = 'Bearer realm="memory-runtime", error="invalid_token"';

let h: Harness;
let tenantId: string;
let tenantToken: string;

beforeAll(async () => {
  h = await startHarness();
  ({ tenant_id: tenantId, token: tenantToken } = await h.createTenant("Auth Co"));
});
afterAll(() => h.close());

/** Every authenticated route, with a body that would succeed for an admin. */
function routes(): Array<{ method: string; path: string; body?: unknown }> {
  return [
    { method: "GET", path: "/tenants" },
    { method: "GET", path: "/tenants/me" },
    { method: "GET", path: `/tenants/${tenantId}/healthz` },
    { method: "GET", path: "/admin/tenants" },
    { method: "POST", path: "/admin/tenants", body: { name: `never created ${Math.random()}` } },
    { method: "POST", path: `/admin/jwt/${tenantId}`, body: { roles: ["tenant_admin"] } },
    { method: "GET", path: `/admin/roles/${tenantId}` },
    { method: "POST", path: `/admin/roles/${tenantId}`, body: { name: "never", permissions: [] } },
    { method: "DELETE", path: `/admin/roles/${tenantId}/never` },
    { method: "GET", path: `/admin/audit/denials/${tenantId}` },
  ];
}

const claims = (over: Record<string, unknown> = {}) => ({
  sub: "agent-1",
  tenant_id: tenantId,
  roles: ["tenant_admin"],
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
  ...over,
});

describe("401 unauthorized", () => {
  test("every authenticated route refuses a request without a token", async () => {
    for (const r of routes()) {
      const res = await h.call(r.method, r.path, { body: r.body });
      expect(res.headers.get("www-authenticate")).toBe(NO_TOKEN);
      const problem = await expectProblem(res, 401, "unauthorized");
      expect(problem.detail).toMatch(/token/);
    }
    // Nothing was created by the refused POST.
    const { body } = await h.json("GET", "/admin/tenants", { token: h.adminToken });
    expect(body.tenants.map((t: { name: string }) => t.name)).toEqual(["Auth Co"]);
  });

  test("a well-formed control token is accepted (so the refusals below are about the token)", async () => {
    const token = craftJwt({ alg: "HS256", typ: "JWT" }, claims(), TEST_SECRET);
    const res = await h.call("GET", "/tenants/me", { token });
    expect(res.status).toBe(200);
  });

  const cases: Array<[string, () => Promise<string> | string]> = [
    [
      "an expired token",
      () => craftJwt({ alg: "HS256", typ: "JWT" }, claims({ exp: nowSeconds() - 10 }), TEST_SECRET),
    ],
    [
      "a token without exp",
      () => {
        const { exp: _exp, ...rest } = claims();
        return craftJwt({ alg: "HS256", typ: "JWT" }, rest, TEST_SECRET);
      },
    ],
    ["an alg:none token (jose UnsecuredJWT)", () => new UnsecuredJWT(claims()).encode()],
    [
      "an alg:none token with a signature part",
      () => `${craftJwt({ alg: "none" }, claims(), undefined)}c2ln`,
    ],
    ["an alg:NONE token", () => craftJwt({ alg: "NONE" }, claims(), undefined)],
    [
      "a token signed with another secret",
      () => craftJwt({ alg: "HS256" }, claims(), `${TEST_SECRET}-but-different`),
    ],
    [
      "a token signed with HS512 and the right secret",
      () => new SignJWT(claims()).setProtectedHeader({ alg: "HS512" }).sign(key),
    ],
    [
      "a token signed with HS384 and the right secret",
      () => new SignJWT(claims()).setProtectedHeader({ alg: "HS384" }).sign(key),
    ],
    [
      "a token signed with RS256 (an RSA key)",
      async () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: "RS256" })
          .sign((await generateKeyPair("RS256")).privateKey),
    ],
    [
      "a token whose payload was altered after signing",
      () => {
        const good = craftJwt({ alg: "HS256" }, claims({ roles: [] }), TEST_SECRET).split(".");
        const forged = Buffer.from(JSON.stringify(claims({ roles: ["tenant_admin"], admin: true }))).toString(
          "base64url",
        );
        return `${good[0]}.${forged}.${good[2]}`;
      },
    ],
    [
      "a token for a tenant that does not exist",
      () => craftJwt({ alg: "HS256" }, claims({ tenant_id: UNKNOWN_TENANT }), TEST_SECRET),
    ],
    [
      "a token with a malformed tenant id",
      () => craftJwt({ alg: "HS256" }, claims({ tenant_id: "../../etc" }), TEST_SECRET),
    ],
    [
      "an admin claim outside the operator tenant",
      () => craftJwt({ alg: "HS256" }, claims({ admin: true }), TEST_SECRET),
    ],
    [
      "an operator-tenant token without the admin claim",
      () => craftJwt({ alg: "HS256" }, claims({ tenant_id: OPERATOR_TENANT_ID }), TEST_SECRET),
    ],
    [
      "a token with roles that are not a list",
      () => craftJwt({ alg: "HS256" }, claims({ roles: "tenant_admin" }), TEST_SECRET),
    ],
    [
      "a token with a string exp",
      () => craftJwt({ alg: "HS256" }, claims({ exp: String(nowSeconds() + 600) }), TEST_SECRET),
    ],
    [
      "two base64 parts only",
      () => craftJwt({ alg: "HS256" }, claims(), TEST_SECRET).split(".").slice(0, 2).join("."),
    ],
    ["random text", () => "not.a.token"],
    [
      "a token whose exp lies past the last JavaScript date (8.64e12 s)",
      () => craftJwt({ alg: "HS256" }, claims({ exp: 9e12 }), TEST_SECRET),
    ],
    [
      "a token whose exp is the largest double",
      () => craftJwt({ alg: "HS256" }, claims({ exp: Number.MAX_VALUE }), TEST_SECRET),
    ],
    [
      "a token valid for longer than any token lifetime (10 years)",
      () => craftJwt({ alg: "HS256" }, claims({ exp: nowSeconds() + 10 * 366 * 86400 }), TEST_SECRET),
    ],
    ["a token with a negative exp", () => craftJwt({ alg: "HS256" }, claims({ exp: -1 }), TEST_SECRET)],
  ];

  for (const [name, make] of cases) {
    test(`${name} → 401`, async () => {
      const token = await make();
      const res = await h.call("GET", "/tenants", { token });
      expect(res.headers.get("www-authenticate")).toBe(BAD_TOKEN);
      await expectProblem(res, 401, "unauthorized");
      const admin = await h.call("GET", "/admin/tenants", { token });
      expect(admin.headers.get("www-authenticate")).toBe(BAD_TOKEN);
      await expectProblem(admin, 401, "unauthorized");
    });
  }

  test("garbage Authorization headers → 401", async () => {
    const valid = craftJwt({ alg: "HS256" }, claims(), TEST_SECRET);
    const headers = [
      "",
      "Bearer",
      "Bearer ",
      `Basic ${Buffer.from("admin:admin").toString("base64")}`,
      `Token ${valid}`,
      valid,
      `Bearer ${valid} extra`,
      `Bearer ${valid},${valid}`,
      "Bearer \u00e9\u00e9\u00e9",
      "Bearer <script>",
      `Bearer ${"a".repeat(20_000)}`,
      "Bearer ....",
    ];
    for (const authorization of headers) {
      const res = await h.call("GET", "/tenants/me", { headers: { authorization } });
      // A header that names no readable bearer token is "no token"; a readable one was refused.
      const presented = bearerToken(new Request("http://localhost/", { headers: { authorization } }));
      expect({ authorization, challenge: res.headers.get("www-authenticate") }).toEqual({
        authorization,
        challenge: presented === undefined ? NO_TOKEN : BAD_TOKEN,
      });
      const problem = await expectProblem(res, 401, "unauthorized");
      expect(JSON.stringify(problem)).not.toContain(TEST_SECRET);
    }
  });

  test("the scheme is case-insensitive", async () => {
    const res = await h.call("GET", "/tenants/me", { headers: { authorization: `bearer ${tenantToken}` } });
    expect(res.status).toBe(200);
  });

  test("an expired token is refused even after it was accepted (cached) while valid", async () => {
    const clock = new ManualClock();
    const timed = await startHarness({ clock });
    try {
      const { token } = await timed.createTenant("Clocked");
      expect((await timed.call("GET", "/tenants/me", { token })).status).toBe(200);
      clock.advance(3600 * 1000 - 1);
      expect((await timed.call("GET", "/tenants/me", { token })).status).toBe(200);
      clock.advance(1);
      const expired = await timed.call("GET", "/tenants/me", { token });
      expect(expired.headers.get("www-authenticate")).toBe(BAD_TOKEN);
      expect((await expectProblem(expired, 401, "unauthorized")).detail).toBe("token expired");
    } finally {
      await timed.close();
    }
  });

  test("a request without a token is 401 even when its body would fail validation", async () => {
    // Authentication comes before body validation: an anonymous caller learns nothing about schemas.
    const res = await h.call("POST", "/admin/tenants", { body: { nope: 1 } });
    await expectProblem(res, 401, "unauthorized");
    const roles = await h.call("POST", `/admin/roles/${tenantId}`, { body: { name: 5 } });
    await expectProblem(roles, 401, "unauthorized");
  });

  test("the operator cookie authenticates GET requests only", async () => {
    const cookie = `memory_admin=${h.adminToken}`;
    const listed = await h.call("GET", "/admin/tenants", { headers: { cookie } });
    expect(listed.status).toBe(200);
    const posted = await h.call("POST", "/admin/tenants", {
      headers: { cookie },
      body: { name: "Cookie Co" },
    });
    expect(posted.headers.get("www-authenticate")).toBe(NO_TOKEN);
    await expectProblem(posted, 401, "unauthorized");
    const { body } = await h.json("GET", "/admin/tenants", { token: h.adminToken });
    expect(body.tenants.map((t: { name: string }) => t.name)).not.toContain("Cookie Co");
  });

  test("the dashboard cookie, its sign-in form and MCP refuse the same tokens, with the challenge", async () => {
    const operator = (over: Record<string, unknown>) =>
      claims({ sub: "operator", tenant_id: OPERATOR_TENANT_ID, roles: [], admin: true, ...over });
    const refused: Array<[string, string | Promise<string>]> = [
      ["HS512", new SignJWT(operator({})).setProtectedHeader({ alg: "HS512" }).sign(key)],
      ["alg none", new UnsecuredJWT(operator({})).encode()],
      ["expired", craftJwt({ alg: "HS256" }, operator({ exp: nowSeconds() - 1 }), TEST_SECRET)],
      ["no exp", craftJwt({ alg: "HS256" }, operator({ exp: undefined }), TEST_SECRET)],
      [
        "past the cap",
        craftJwt({ alg: "HS256" }, operator({ exp: nowSeconds() + 400 * 86400 }), TEST_SECRET),
      ],
      ["another secret", craftJwt({ alg: "HS256" }, operator({}), `${TEST_SECRET}-other`)],
    ];
    for (const [name, pending] of refused) {
      const token = await pending;
      const page = await h.call("GET", "/admin/dashboard", { headers: { cookie: `memory_admin=${token}` } });
      const form = await h.call("POST", "/admin/dashboard/session", {
        raw: `token=${encodeURIComponent(token)}`,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      const mcp = await h.call("POST", "/mcp", {
        token,
        body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        headers: { accept: "application/json, text/event-stream" },
      });
      expect({
        name,
        page: [page.status, page.headers.get("www-authenticate")],
        form: [form.status, form.headers.get("www-authenticate"), form.headers.get("set-cookie")],
        mcp: [mcp.status, mcp.headers.get("www-authenticate")],
      }).toEqual({
        name,
        page: [401, BAD_TOKEN],
        form: [401, BAD_TOKEN, null],
        mcp: [401, BAD_TOKEN],
      });
      await expectProblem(mcp, 401, "unauthorized");
    }
    // The same claims, signed HS256 with the runtime's secret, pass every one of the three paths.
    const good = craftJwt({ alg: "HS256" }, operator({}), TEST_SECRET);
    const page = await h.call("GET", "/admin/dashboard", { headers: { cookie: `memory_admin=${good}` } });
    const form = await h.call("POST", "/admin/dashboard/session", {
      raw: `token=${encodeURIComponent(good)}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const mcp = await h.call("POST", "/mcp", {
      token: good,
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { accept: "application/json, text/event-stream" },
    });
    expect([page.status, form.status, mcp.status]).toEqual([200, 303, 200]);
    expect(form.headers.get("set-cookie")).toStartWith(`memory_admin=${good};`);
  });
});

describe("bearerToken / requestInfo", () => {
  const req = (authorization?: string) =>
    new Request("http://localhost/x", authorization === undefined ? {} : { headers: { authorization } });

  test("extracts the token of a Bearer header only", () => {
    expect(bearerToken(req("Bearer abc.def.ghi"))).toBe("abc.def.ghi");
    expect(bearerToken(req("BEARER abc.def.ghi"))).toBe("abc.def.ghi");
    expect(bearerToken(req())).toBeUndefined();
    expect(bearerToken(req("Basic abc"))).toBeUndefined();
    expect(bearerToken(req("Bearer a b"))).toBeUndefined();
    expect(bearerToken(req("Bearer"))).toBeUndefined();
  });

  test("requestInfo keeps the method and the path without the query", () => {
    expect(requestInfo(new Request("http://localhost/admin/tenants?x=1", { method: "POST" }))).toEqual({
      method: "POST",
      path: "/admin/tenants",
    });
    expect(requestInfo(new Request("http://localhost:8080/"))).toEqual({ method: "GET", path: "/" });
  });
});
