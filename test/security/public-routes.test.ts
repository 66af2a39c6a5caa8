/**
 * Which routes answer without a token (CONTRACT §8, docs/auth.md): exactly the health probe, the
 * API description, the signed webhooks, and the dashboard's sign-in form and sign-out. Every
 * route is enumerated from the app itself (Elysia's router and the OpenAPI document), never from
 * a hand list, so a route added tomorrow is walked too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { craftJwt, nowSeconds } from "../helpers/jwt.ts";
import { expectProblem } from "../helpers/problem.ts";
import { setSecrets } from "../helpers/webhooks.ts";

/** The routes anyone may call, as `METHOD /path/:param`. */
const PUBLIC = new Set([
  "GET /healthz",
  "GET /livez",
  "GET /readyz",
  "GET /openapi",
  "GET /openapi/assets/:file",
  "GET /openapi/json",
  "POST /webhooks/:source/:tenant_id",
  "POST /admin/dashboard/session",
  "GET /admin/dashboard/sign-out",
]);
/**
 * Pages for a person answer their 401 with the sign-in form, not a problem document: every guarded
 * route of the dashboard is one, so a form added there is walked as a page without a list to edit.
 */
function isPage(operation: string): boolean {
  return !PUBLIC.has(operation) && split(operation).path.startsWith("/admin/dashboard");
}
const NO_TOKEN = 'Bearer realm="memory-runtime"';
const BAD_TOKEN = 'Bearer realm="memory-runtime", error="invalid_token"';
const hostileParam = "..%2F..%2Fetc%2Fpasswd";

let h: Harness;
let doc: { paths: Record<string, Record<string, { security?: unknown[] }>> };

beforeAll(async () => {
  h = await startHarness();
  doc = (await (await h.call("GET", "/openapi/json")).json()) as typeof doc;
});
afterAll(() => h.close());

/** `METHOD /path/:param` of every route Elysia registered. */
function routerOperations(): string[] {
  return h.app.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
}

/** `METHOD /path/:param` of every operation of the OpenAPI document (`{param}` → `:param`). */
function documentOperations(): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`),
  );
}

/** Every operation either source knows of, each once. */
function allOperations(): string[] {
  return [...new Set([...routerOperations(), ...documentOperations()])].sort();
}

function split(operation: string): { method: string; path: string } {
  const [method, path] = operation.split(" ") as [string, string];
  return { method, path };
}

async function hostileAnonymous(operation: string, headers: Record<string, string> = {}) {
  const { method, path } = split(operation);
  const concrete = path.replace(/:[a-z_0-9]+/g, hostileParam);
  return h.call(method, `${concrete}?limit=-1&cursor=%00&from=yesterday&as_of=%FF`, {
    raw: '{"toString": {"valueOf": 1}, "__proto__": {"admin": true}, "category": [[[',
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The 401 of a guarded route: the sign-in page for the dashboard, a problem document elsewhere. */
async function expectRefusal(operation: string, res: Response, challenge: string): Promise<string> {
  expect({ operation, status: res.status, challenge: res.headers.get("www-authenticate") }).toEqual({
    operation,
    status: 401,
    challenge,
  });
  if (isPage(operation)) {
    expect({ operation, type: res.headers.get("content-type") }).toEqual({
      operation,
      type: "text/html; charset=utf-8",
    });
    await res.text();
    return "";
  }
  return (await expectProblem(res, 401, "unauthorized")).detail;
}

describe("routes reachable without a token (CONTRACT §8)", () => {
  test("the router and the OpenAPI document list the same operations, the public ones among them", () => {
    const router = [...new Set(routerOperations())].sort();
    expect(router.length).toBeGreaterThan(30);
    expect(router).toEqual([...new Set(documentOperations())].sort());
    for (const operation of PUBLIC) expect(router).toContain(operation);
    const pages = router.filter(isPage);
    for (const page of [
      "GET /admin/dashboard",
      "POST /admin/dashboard/tenants",
      "POST /admin/dashboard/tenants/:tenant_id/tokens",
    ])
      expect(pages).toContain(page);
  });

  test("the OpenAPI document says so too: `security: []` on the public operations, and on no other", () => {
    const open = documentOperations().filter((operation) => {
      const { method, path } = split(operation);
      const item = doc.paths[path.replace(/:([a-z_0-9]+)/g, "{$1}")]!;
      const security = item[method.toLowerCase()]!.security;
      return Array.isArray(security) && security.length === 0;
    });
    expect(open.sort()).toEqual([...PUBLIC].sort());
  });

  test("every other route answers an anonymous hostile request with 401, a Bearer challenge and no hint", async () => {
    const guarded = allOperations().filter((operation) => !PUBLIC.has(operation));
    expect(guarded.length).toBeGreaterThan(30);
    for (const operation of guarded) {
      const detail = await expectRefusal(operation, await hostileAnonymous(operation), NO_TOKEN);
      if (!isPage(operation))
        expect({ operation, detail }).toEqual({ operation, detail: "missing bearer token" });
    }
  });

  test("every other route answers a refused token with 401 and error=invalid_token", async () => {
    const forged = craftJwt(
      { alg: "HS512", typ: "JWT" },
      { sub: "x", tenant_id: OPERATOR_TENANT_ID, roles: [], admin: true, exp: nowSeconds() + 60 },
      TEST_SECRET,
    );
    for (const operation of allOperations().filter((o) => !PUBLIC.has(o))) {
      const res = await hostileAnonymous(operation, { authorization: `Bearer ${forged}` });
      const detail = await expectRefusal(operation, res, BAD_TOKEN);
      if (!isPage(operation))
        expect({ operation, detail }).toEqual({ operation, detail: expect.stringMatching(/token/) });
    }
  });

  test("each public route answers a legitimate request without a token, never 401", async () => {
    const { tenant_id } = await h.createTenant();
    const dataToken = `data-token-${crypto.randomUUID()}`;
    setSecrets(h, tenant_id, { DATA_WEBHOOK_TOKEN: dataToken });
    const requests: Record<string, () => Promise<Response>> = {
      "GET /healthz": () => h.call("GET", "/healthz"),
      "GET /livez": () => h.call("GET", "/livez"),
      "GET /readyz": () => h.call("GET", "/readyz"),
      "GET /openapi": () => h.call("GET", "/openapi"),
      "GET /openapi/assets/:file": () => h.call("GET", "/openapi/assets/swagger-ui.css"),
      "GET /openapi/json": () => h.call("GET", "/openapi/json"),
      // The data platform's own bearer token (not a JWT): the route checks the source's credential only.
      "POST /webhooks/:source/:tenant_id": () =>
        h.call("POST", `/webhooks/data/${tenant_id}`, {
          body: {
            event: "MODEL_VERSION_CREATED",
            webhook_id: "wh-1",
            event_timestamp: 1763719100000,
            model_name: "churn",
            version: "8",
          },
          headers: { authorization: `Bearer ${dataToken}` },
        }),
      // The operator's token travels in the form's body, not in Authorization.
      "POST /admin/dashboard/session": () =>
        h.call("POST", "/admin/dashboard/session", {
          raw: `token=${encodeURIComponent(h.adminToken)}`,
          headers: { "content-type": "application/x-www-form-urlencoded" },
        }),
      "GET /admin/dashboard/sign-out": () => h.call("GET", "/admin/dashboard/sign-out"),
    };
    const expected: Record<string, number> = {
      "GET /healthz": 200,
      "GET /livez": 200,
      "GET /readyz": 200,
      "GET /openapi": 200,
      "GET /openapi/assets/:file": 200,
      "GET /openapi/json": 200,
      "POST /webhooks/:source/:tenant_id": 200,
      "POST /admin/dashboard/session": 303,
      "GET /admin/dashboard/sign-out": 303,
    };
    // A new public route needs a case here (and an entry in CONTRACT §8's list).
    expect(Object.keys(requests).sort()).toEqual([...PUBLIC].sort());
    for (const [operation, send] of Object.entries(requests)) {
      const res = await send();
      await res.arrayBuffer();
      expect({ operation, status: res.status }).toEqual({ operation, status: expected[operation]! });
    }
  });

  test("the webhook route does not ask for a JWT: an unsigned delivery is refused by its source's check", async () => {
    const { tenant_id } = await h.createTenant();
    setSecrets(h, tenant_id, { DATA_WEBHOOK_TOKEN: `data-token-${crypto.randomUUID()}` });
    const res = await h.call("POST", `/webhooks/data/${tenant_id}`, { body: { event: "x" } });
    expect((await expectProblem(res, 401, "unauthorized")).detail).toMatch(/^delivery rejected: /);
  });
});

describe("the OpenAPI document names the challenge", () => {
  test("every guarded operation declares its 401, and every 401 its WWW-Authenticate header", () => {
    let declared = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const unauthorized = (operation as { responses?: Record<string, { headers?: object }> }).responses?.[
          "401"
        ];
        const guarded = !PUBLIC.has(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`);
        if (guarded)
          expect({ at: `${method} ${path}`, has401: !!unauthorized }).toEqual({
            at: `${method} ${path}`,
            has401: true,
          });
        if (!unauthorized) continue;
        declared++;
        // The challenge, beside the request id every response carries.
        expect({ at: `${method} ${path}`, headers: Object.keys(unauthorized.headers ?? {}).sort() }).toEqual({
          at: `${method} ${path}`,
          headers: ["WWW-Authenticate", "X-Request-Id"],
        });
      }
    }
    expect(declared).toBeGreaterThan(30);
  });
});
