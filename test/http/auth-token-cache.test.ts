/**
 * The verified-token cache on the request path (src/auth/authenticator.ts `known`): a token seen
 * before skips its signature check, and nothing else. Each test first makes the token cached (one
 * accepted request), then changes what the cache must not hide.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

const BAD_TOKEN = 'Bearer realm="memory-runtime", error="invalid_token"';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A tenant and a token already accepted once (so cached). */
async function cachedTenant(): Promise<{ tenantId: string; token: string }> {
  const { tenant_id: tenantId, token } = await h.createTenant();
  expect((await h.call("GET", "/tenants/me", { token })).status).toBe(200);
  return { tenantId, token };
}

describe("a cached token", () => {
  test("is refused once its tenant is deleted", async () => {
    const { tenantId, token } = await cachedTenant();
    expect((await h.call("POST", `/admin/tenants/${tenantId}/suspend`, { token: h.adminToken })).status).toBe(
      200,
    );
    expect((await h.call("DELETE", `/admin/tenants/${tenantId}`, { token: h.adminToken })).status).toBe(200);
    const res = await h.call("GET", "/tenants/me", { token });
    expect(res.headers.get("www-authenticate")).toBe(BAD_TOKEN);
    expect((await expectProblem(res, 401, "unauthorized")).detail).toBe("the token's tenant does not exist");
  });

  test("is refused while its tenant is suspended, and accepted again once it resumes", async () => {
    const { tenantId, token } = await cachedTenant();
    expect((await h.call("POST", `/admin/tenants/${tenantId}/suspend`, { token: h.adminToken })).status).toBe(
      200,
    );
    await expectProblem(await h.call("GET", "/tenants/me", { token }), 403, "tenant_suspended");
    expect((await h.call("POST", `/admin/tenants/${tenantId}/resume`, { token: h.adminToken })).status).toBe(
      200,
    );
    expect((await h.call("GET", "/tenants/me", { token })).status).toBe(200);
  });

  test("loses the permissions of a role deleted after it was cached", async () => {
    const { tenantId } = await cachedTenant();
    const role = { name: "reader", permissions: ["memory:read"] };
    expect(
      (await h.call("POST", `/admin/roles/${tenantId}`, { token: h.adminToken, body: role })).status,
    ).toBe(201);
    const reader = await h.mint(tenantId, ["reader"]);
    expect((await h.call("GET", "/memory/facts", { token: reader })).status).toBe(200);
    expect((await h.call("DELETE", `/admin/roles/${tenantId}/reader`, { token: h.adminToken })).status).toBe(
      200,
    );
    await expectProblem(await h.call("GET", "/memory/facts", { token: reader }), 403, "forbidden");
  });

  test("still gets a tenant token refused on an admin route (403)", async () => {
    const { token } = await cachedTenant();
    await expectProblem(await h.call("GET", "/admin/tenants", { token }), 403, "forbidden");
  });

  test("is parsed from the header as before: case, extra spaces and trailing whitespace accepted, anything else refused", async () => {
    const { token } = await cachedTenant();
    for (const header of [`bearer ${token}`, `Bearer   ${token}`, `Bearer ${token} `, `BEARER ${token}`]) {
      expect((await h.call("GET", "/tenants/me", { headers: { authorization: header } })).status).toBe(200);
    }
    const mangled = [
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token.slice(0, 20)} ${token.slice(20)}`,
    ];
    for (const header of mangled) {
      await expectProblem(
        await h.call("GET", "/tenants/me", { headers: { authorization: header } }),
        401,
        "unauthorized",
      );
    }
    await expectProblem(
      await h.call("GET", "/tenants/me", { headers: { authorization: token } }),
      401,
      "unauthorized",
    );
  });
});

describe("a cached token and the clock", () => {
  test("is refused from its exp on, with the same answer as an uncached expired token", async () => {
    const clock = new ManualClock();
    const timed = await startHarness({ clock });
    try {
      const { tenant_id } = await timed.createTenant();
      const token = (
        await timed.runtime.services.tokens.mint({
          sub: "a",
          tenantId: tenant_id,
          roles: ["tenant_admin"],
          ttlSeconds: 60,
        })
      ).token;
      const never = (
        await timed.runtime.services.tokens.mint({
          sub: "b",
          tenantId: tenant_id,
          roles: ["tenant_admin"],
          ttlSeconds: 60,
        })
      ).token;
      expect((await timed.call("GET", "/memory/facts", { token })).status).toBe(200);
      clock.advance(60_000);
      for (const t of [token, token, never]) {
        const res = await timed.call("GET", "/memory/facts", { token: t });
        expect(res.headers.get("www-authenticate")).toBe(BAD_TOKEN);
        expect((await expectProblem(res, 401, "unauthorized")).detail).toBe("token expired");
      }
    } finally {
      await timed.close();
    }
  });
});

describe("a cached token and the signing secret", () => {
  test("is refused after a restart with another secret (key rotation), and the new secret's tokens are accepted", async () => {
    const rotating = await startHarness();
    try {
      const { tenant_id, token } = await rotating.createTenant();
      expect((await rotating.call("GET", "/tenants/me", { token })).status).toBe(200);
      rotating.env.MEMORY_RUNTIME_JWT_SECRET = "another-secret-that-is-at-least-32-bytes-long";
      await rotating.restart();
      const refused = await rotating.call("GET", "/tenants/me", { token });
      expect((await expectProblem(refused, 401, "unauthorized")).detail).toMatch(/signature/);
      const fresh = await rotating.mint(tenant_id, ["tenant_admin"]);
      expect((await rotating.call("GET", "/tenants/me", { token: fresh })).status).toBe(200);
    } finally {
      await rotating.close();
    }
  });
});
