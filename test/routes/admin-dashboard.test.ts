import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { PAYMENTS_SECRET, paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { setSecrets } from "../helpers/webhooks.ts";

const STARTED_AT = Date.UTC(2026, 10, 23, 12, 0, 0);
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const HOSTILE = `<b>bold</b> "q" & 'a'`;

// The dashboard shows runtime-wide figures (tenants, writes per day, events per source) and the cookie
// lives as long as the token has left: each test gets a runtime and a clock no other test has touched.
let clock: ManualClock;
let h: Harness;
beforeEach(async () => {
  clock = new ManualClock(STARTED_AT);
  h = await startHarness({ clock });
});
afterEach(() => h.close());

async function page(
  token = h.adminToken,
  query = "",
): Promise<{ status: number; text: string; res: Response }> {
  const res = await h.call("GET", `/admin/dashboard${query}`, { token });
  return { status: res.status, text: await res.text(), res };
}

/** The text of each cell of the table row carrying `attribute="value"`. */
function rowCells(text: string, attribute: string, value: string): string[] {
  const row = text.match(new RegExp(`<tr ${attribute}="${value}">([\\s\\S]*?)</tr>`))?.[1];
  expect(row).toBeDefined();
  return [...row!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, "").trim());
}

function signIn(token: string, headers: Record<string, string> = {}) {
  return h.call("POST", "/admin/dashboard/session", {
    raw: `token=${encodeURIComponent(token)}`,
    headers: { ...FORM, ...headers },
  });
}

function expectPage(res: Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("GET /admin/dashboard: who may see it", () => {
  test("no token → 401 with the sign-in form", async () => {
    const res = await h.call("GET", "/admin/dashboard");
    expectPage(res, 401);
    const text = await res.text();
    expect(text).toContain('<form class="sign-in" method="post" action="/admin/dashboard/session">');
    expect(text).toContain('name="token" type="password"');
    expect(text).not.toContain('role="alert"');
  });

  test("a tenant token → 403 (the form says why), recorded as a denial", async () => {
    const { tenant_id, token } = await h.createTenant();
    const { status, text, res } = await page(token);
    expectPage(res, 403);
    expect(status).toBe(403);
    expect(text).toContain("not the operator&#39;s");
    const { body } = await h.json("GET", `/admin/audit/denials/${tenant_id}`, { token: h.adminToken });
    expect(body.denials[0]).toMatchObject({ method: "GET", path: "/admin/dashboard", permission: "admin" });
  });

  test("a malformed or expired token → 401 saying it was refused", async () => {
    const res = await h.call("GET", "/admin/dashboard", { headers: { authorization: "Bearer abc.def.ghi" } });
    expectPage(res, 401);
    expect(await res.text()).toContain("The token was refused");
  });
});

describe("GET /admin/dashboard: what it shows", () => {
  test("tenants with status and entries per category, every value escaped", async () => {
    const { tenant_id, token } = await h.createTenant(HOSTILE);
    for (const [plural, content] of [
      ["facts", "one"],
      ["facts", "two"],
      ["workflows", "three"],
    ] as const)
      expect((await h.call("POST", `/memory/${plural}`, { token, body: { content } })).status).toBe(201);
    const { status, text, res } = await page();
    expectPage(res, 200);
    expect(status).toBe(200);
    expect(text).not.toContain(HOSTILE);
    expect(text).toContain("&lt;b&gt;bold&lt;/b&gt; &quot;q&quot; &amp; &#39;a&#39;");
    // tenant, status, decision, exception, fact, workflow, relationship, outcome, total, dead letters
    expect(rowCells(text, "data-tenant", tenant_id).slice(1)).toEqual([
      "active",
      "0",
      "0",
      "2",
      "1",
      "0",
      "0",
      "3",
      "0",
    ]);
    expect(text).toContain("<title>2026-11-23 fact: 2</title>");
    expect(text).toContain("<title>2026-11-23 workflow: 1</title>");
  });

  test("webhook counters per source: accepted, duplicates, ignored, dead-lettered and rejected by status", async () => {
    const { tenant_id } = await h.createTenant();
    setSecrets(h, tenant_id, paymentsSender.secrets);
    const url = `${BASE}/webhooks/payments/${tenant_id}`;
    const send = async (body: string, tenant = tenant_id) => {
      const signed = await paymentsSender.sign(body, { now: clock.now(), url });
      return h.call("POST", `/webhooks/payments/${tenant}`, { raw: signed.body, headers: signed.headers });
    };
    const paid = stripeEvent("payment_intent.succeeded", { id: "pi_1", amount: 1000, currency: "usd" });
    expect((await send(paid)).status).toBe(200);
    expect((await send(paid)).status).toBe(200); // the same event again: a duplicate
    expect((await send(stripeEvent("customer.created", { id: "cus_1" }))).status).toBe(200); // ignored
    const refused = await h.call("POST", `/webhooks/payments/${tenant_id}`, {
      raw: paid,
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
    });
    expect(refused.status).toBe(401);
    expect((await send(paid, "01JDB2X6J3KQ5W8Z3M4N7P9R2S")).status).toBe(404);
    await h.call("POST", `/admin/tenants/${tenant_id}/suspend`, { token: h.adminToken });
    expect((await send(stripeEvent("payment_intent.succeeded", { id: "pi_2" }))).status).toBe(200);
    const { text } = await page();
    expect(rowCells(text, "data-source", "payments")).toEqual([
      "payments",
      "1",
      "1",
      "1",
      "1",
      "401: 1 404: 1",
    ]);
    expect(text).toContain("<title>payments accepted: 1</title>");
    expect(PAYMENTS_SECRET.length).toBeGreaterThan(0);
    expect(text).not.toContain(PAYMENTS_SECRET);
  });

  test("dead letters per tenant, recent denials and revenue per agent", async () => {
    const { tenant_id, token } = await h.createTenant();
    const reader = await h.mint(tenant_id, ["reader"], "agent-reader");
    expect((await h.call("POST", "/memory/facts", { token: reader, body: { content: "x" } })).status).toBe(
      403,
    );
    const decision = await h.json("POST", "/memory/decisions", {
      token,
      body: { content: "discount", agent_id: "agent-7" },
    });
    const outcome = await h.call("POST", "/memory/outcomes", {
      token,
      body: {
        content: "won",
        decision_id: decision.body.id,
        result: "success",
        amount: 1234.5,
        agent_id: "agent-7",
      },
    });
    expect(outcome.status).toBe(201);
    const { text } = await page();
    expect(text).toMatch(
      /<td>agent-reader<\/td><td><code>POST \/memory\/facts<\/code><\/td><td>memory:write:facts<\/td>/,
    );
    const revenue = rowCells(text.slice(text.indexOf('id="revenue"')), "data-tenant", tenant_id);
    expect(revenue.slice(1, 4)).toEqual(["1,234.5 USD", "1", "1,234.5 USD"]);
  });

  test("tenants are paged: ?limit= and the next link's cursor; a malformed cursor → 422 page", async () => {
    await h.createTenant();
    await h.createTenant();
    const first = await page(h.adminToken, "?limit=1");
    const next = first.text.match(/href="(\/admin\/dashboard\?cursor=[^"]+)"/)?.[1];
    expect(next).toBeDefined();
    const second = await h.call("GET", next!, { token: h.adminToken });
    expect(second.status).toBe(200);
    const firstRows = first.text.match(/<tr data-tenant="([^"]+)">/g) ?? [];
    expect(firstRows).toHaveLength(2); // the tenants table and the revenue table
    const bad = await page(h.adminToken, "?cursor=%00%00");
    expectPage(bad.res, 422);
    const huge = await page(h.adminToken, "?limit=100000");
    expectPage(huge.res, 422);
  });
});

describe("the token form and the cookie", () => {
  test("an admin token → 303 to the dashboard with an HttpOnly, SameSite=Strict cookie for /admin; the cookie opens it", async () => {
    const res = await signIn(h.adminToken);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/dashboard");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toStartWith(`memory_admin=${h.adminToken}; `);
    expect(cookie.split("; ").slice(1).sort()).toEqual([
      "HttpOnly",
      "Max-Age=3600",
      "Path=/admin",
      "SameSite=Strict",
    ]);
    const opened = await h.call("GET", "/admin/dashboard", {
      headers: { cookie: `memory_admin=${h.adminToken}` },
    });
    expect(opened.status).toBe(200);
  });

  test("over HTTPS the cookie is Secure", async () => {
    const res = await signIn(h.adminToken, { "x-forwarded-proto": "https" });
    expect(res.headers.get("set-cookie")).toContain("; Secure");
  });

  test("the cookie does not authorise a POST", async () => {
    const res = await h.call("POST", "/admin/tenants", {
      headers: { cookie: `memory_admin=${h.adminToken}` },
      body: { name: "Via cookie" },
    });
    expect(res.status).toBe(401);
  });

  test("a tenant token → 403 page, an invalid one → 401 page; no cookie either way", async () => {
    const { token } = await h.createTenant();
    const tenant = await signIn(token);
    expectPage(tenant, 403);
    expect(tenant.headers.get("set-cookie")).toBeNull();
    const invalid = await signIn("not-a-jwt");
    expectPage(invalid, 401);
    expect(await invalid.text()).toContain("The token was refused");
    expect(invalid.headers.get("set-cookie")).toBeNull();
  });

  test("an expired cookie → 401 with the form, and the cookie is cleared", async () => {
    const { token } = await h.runtime.services.tokens.mint({
      sub: "operator",
      tenantId: OPERATOR_TENANT_ID,
      roles: [],
      admin: true,
      ttlSeconds: 60,
    });
    clock.advance(61_000);
    const res = await h.call("GET", "/admin/dashboard", { headers: { cookie: `memory_admin=${token}` } });
    expectPage(res, 401);
    expect(res.headers.get("set-cookie")).toContain(
      "memory_admin=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0",
    );
  });

  test("hostile forms: another media type 400, oversized 413, no token 422, odd field names 422: never a 500", async () => {
    const json = await h.call("POST", "/admin/dashboard/session", { body: { token: h.adminToken } });
    expectPage(json, 400);
    const big = await h.call("POST", "/admin/dashboard/session", {
      raw: `token=${"a".repeat(20_000)}`,
      headers: FORM,
    });
    expectPage(big, 413);
    for (const raw of [
      "",
      "toke=1",
      "__proto__=x&toString=y&constructor=z",
      "token=",
      "%ZZ=%ZZ",
      "token=%FF%FE",
    ]) {
      const res = await h.call("POST", "/admin/dashboard/session", { raw, headers: FORM });
      expect({ raw, status: res.status }).toEqual({ raw, status: raw === "token=%FF%FE" ? 401 : 422 });
    }
  });

  test("sign out → 303 to the dashboard, clearing the cookie", async () => {
    const res = await h.call("GET", "/admin/dashboard/sign-out");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/dashboard");
    expect(res.headers.get("set-cookie")).toBe(
      "memory_admin=; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=0",
    );
  });
});
