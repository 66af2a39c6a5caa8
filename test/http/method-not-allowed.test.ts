/**
 * 405 with `Allow` on every route, generated from the app's own route table (so a new route is
 * covered without touching this file), through `app.handle` and through a listening server; the
 * dashboard's error pages; `GET /memory/{category}/batch`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATEGORIES, PLURAL_OF } from "../../src/models/category.ts";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

/** The methods a client may send; TRACE and CONNECT are answered by no HTTP API. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const DASHBOARD = "/admin/dashboard";

interface Resource {
  /** The route's path with parameters filled in. */
  path: string;
  /** What `Allow` must say: the methods of routes of this shape, HEAD wherever GET is served. */
  allow: string;
}

/**
 * One concrete path per route shape (parameter names ignored), with the methods its routes serve.
 * A parameter becomes a value no literal segment has, so the path is that shape's and no other's.
 */
function resourcesOf(routes: ReadonlyArray<{ method: string; path: string }>): Resource[] {
  const byShape = new Map<string, { path: string; methods: Set<string> }>();
  for (const route of routes) {
    const shape = route.path.replace(/:[^/]+/g, ":");
    const entry = byShape.get(shape) ?? { path: concrete(route.path), methods: new Set<string>() };
    entry.methods.add(route.method.toUpperCase());
    byShape.set(shape, entry);
  }
  return [...byShape.values()].map(({ path, methods }) => {
    if (methods.has("GET")) methods.add("HEAD");
    return { path, allow: [...methods].sort().join(", ") };
  });
}

function concrete(path: string): string {
  return path
    .replace(/:tenant_id/g, TENANT)
    .replace(/:[^/]+/g, "p0")
    .replace(/\*$/, "p0");
}

let h: Harness;
let resources: Resource[];
beforeAll(async () => {
  h = await startHarness();
  resources = resourcesOf(h.app.routes);
});
afterAll(() => h.close());

/** Every (resource, method it does not serve) pair, answered by `send`: each must be a 405 naming its Allow. */
async function expectAll405(send: (method: string, path: string) => Promise<Response>): Promise<number> {
  let checked = 0;
  const wrong: string[] = [];
  for (const { path, allow } of resources) {
    for (const method of METHODS) {
      if (allow.split(", ").includes(method)) continue;
      const res = await send(method, path);
      const got = `${res.status} ${res.headers.get("allow")}`;
      if (got !== `405 ${allow}`) wrong.push(`${method} ${path}: ${got}, expected 405 ${allow}`);
      else if (method !== "HEAD") await expectRefusalBody(res, path);
      checked++;
    }
  }
  expect(wrong).toEqual([]);
  return checked;
}

/** A problem document, or on the dashboard's pages an HTML page with the page headers. */
async function expectRefusalBody(res: Response, path: string): Promise<void> {
  if (path.startsWith(DASHBOARD)) {
    expect(res.headers.get("content-type")).toStartWith("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await res.text()).toContain("405 Method not allowed");
    return;
  }
  await expectProblem(res, 405, "method_not_allowed");
}

describe("405 Method Not Allowed, from the route table", () => {
  test("the table is the app's: every route group is there", () => {
    const paths = resources.map((r) => r.path);
    expect(paths).toContain("/healthz");
    expect(paths).toContain("/openapi");
    expect(paths).toContain(DASHBOARD);
    expect(paths).toContain("/memory/facts/batch");
    expect(paths).toContain(`/webhooks/p0/${TENANT}`);
    expect(resources.length).toBeGreaterThan(40);
  });

  test("every route answers each method it does not serve with 405 and its Allow (app.handle)", async () => {
    const checked = await expectAll405((method, path) =>
      h.app.handle(new Request(`http://localhost${path}`, { method })),
    );
    expect(checked).toBeGreaterThan(resources.length * 4);
  });

  test("the same through a listening server (Bun's own routing in front of the app)", async () => {
    const runtime = await import("../../src/lib.ts");
    const served = runtime.createRuntime({
      env: { ...h.env, MEMORY_RUNTIME_DATA_DIR: `${h.dataDir}-listen` },
    });
    try {
      const { url } = served.listen(0);
      const checked = await expectAll405((method, path) => fetch(url + path, { method }));
      expect(checked).toBeGreaterThan(resources.length * 4);
    } finally {
      await served.stop();
    }
  });

  test("a served method is never refused: HEAD answers wherever GET does", async () => {
    for (const path of ["/healthz", "/openapi", "/openapi/json"]) {
      const head = await h.app.handle(new Request(`http://localhost${path}`, { method: "HEAD" }));
      expect({ path, status: head.status }).toEqual({ path, status: 200 });
    }
  });
});

describe("GET /memory/{category}/batch", () => {
  test("is 405 with Allow: POST for every category, token or not, never the {sha8} route's 422", async () => {
    const { token } = await h.createTenant("batch-get");
    for (const category of CATEGORIES) {
      for (const method of ["GET", "DELETE", "HEAD"]) {
        for (const headers of [{ authorization: `Bearer ${token}` }, {}] as Record<string, string>[]) {
          // app.handle, not h.call: a route miss belongs to no operation of the document.
          const url = `http://localhost/memory/${PLURAL_OF[category]}/batch`;
          const res = await h.app.handle(new Request(url, { method, headers }));
          expect({ category, method, status: res.status, allow: res.headers.get("allow") }).toEqual({
            category,
            method,
            status: 405,
            allow: "POST",
          });
        }
      }
      const trailing = await h.app.handle(
        new Request(`http://localhost/memory/${PLURAL_OF[category]}/batch/`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      expect(trailing.status).toBe(405);
    }
  });

  test("POST still writes the batch, and an entry id on the {sha8} route is still that route's", async () => {
    const { token } = await h.createTenant("batch-post");
    const written = await h.json("POST", "/memory/facts/batch", {
      token,
      body: { entries: [{ content: "the batch route still serves POST" }] },
    });
    expect(written.status).toBe(201);
    const missing = await h.call("GET", "/memory/facts/0123abcd", { token });
    await expectProblem(missing, 404, "not_found");
    const malformed = await h.call("GET", "/memory/facts/not-hex!", { token });
    expect(malformed.status).toBe(422);
  });
});

describe("the dashboard's error pages keep the error's headers", () => {
  test("a 405 is an error page with Allow, not the sign-in form", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const res = await h.call(method, DASHBOARD, { token: h.adminToken });
      expect({ method, status: res.status, allow: res.headers.get("allow") }).toEqual({
        method,
        status: 405,
        allow: "GET, HEAD",
      });
      expect(res.headers.get("x-request-id")).toBeTruthy();
      const page = await res.text();
      expect(page).toContain("405 Method not allowed");
      expect(page).not.toContain("<form");
    }
  });

  test("a 422 names the field on an error page, not the sign-in form", async () => {
    const res = await h.call("GET", `${DASHBOARD}?limit=abc`, { token: h.adminToken });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    const page = await res.text();
    expect(page).toContain("422 Validation failed");
    expect(page).toContain("<code>/limit</code>");
    expect(page).not.toContain("<form");
    expect(page).toContain(`href="${DASHBOARD}"`);
  });

  test("401 and 403 still show the sign-in form", async () => {
    const anonymous = await h.call("GET", DASHBOARD);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toContain("<form");
    const { token } = await h.createTenant("not-the-operator");
    const tenant = await h.call("GET", DASHBOARD, { token });
    expect(tenant.status).toBe(403);
    expect(await tenant.text()).toContain("not the operator");
  });

  test("a 429 keeps Retry-After on its error page", async () => {
    const limited = await startHarness({
      clock: new ManualClock(Date.parse("2026-01-01T00:00:00Z")),
      env: {
        [`MEMORY_RUNTIME_RATE_LIMITS_${OPERATOR_TENANT_ID}`]: "admin=1:1",
        MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "0",
      },
    });
    try {
      expect((await limited.call("GET", DASHBOARD, { token: limited.adminToken })).status).toBe(200);
      const res = await limited.call("GET", DASHBOARD, { token: limited.adminToken });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.headers.get("content-type")).toStartWith("text/html");
      const page = await res.text();
      expect(page).toContain("429 Rate limited");
      expect(page).not.toContain("<form");
    } finally {
      await limited.close();
    }
  });
});
