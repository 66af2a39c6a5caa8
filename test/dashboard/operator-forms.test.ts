/**
 * The dashboard's create, mint and delete forms, black-box through app.handle: each refused without
 * the page's form token or from another site; a new tenant's first token and a minted token shown
 * once, on the POST's own page (201, no-store, never in a Location), and working; a role the tenant
 * does not hold named; a delete refused for an active tenant and for a mistyped confirmation, then
 * done, audited as the admin API's; every value an operator sets escaped.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const SCRIPT = `<script>alert('x')</script>`;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const cookie = () => ({ cookie: `memory_admin=${h.adminToken}` });
const pagePath = (id: string) => `/admin/dashboard/tenants/${id}`;

/** The form token a page rendered for the cookie's session carries. */
async function formTokenOn(path: string): Promise<string> {
  const text = await (await h.call("GET", path, { headers: cookie() })).text();
  const token = text.match(/name="form_token" value="([^"]+)"/)?.[1];
  expect(token).toBeDefined();
  return token!;
}

function post(path: string, fields: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) {
  return h.call("POST", path, {
    raw: new URLSearchParams(fields).toString(),
    headers: { ...FORM, ...cookie(), ...headers },
  });
}

/** The token shown on a token page (the textarea's text, unescaped: a JWT has nothing to escape). */
function shownToken(page: string): string {
  const token = page.match(/<textarea id="minted-token"[^>]*>([^<]+)<\/textarea>/)?.[1];
  expect(token).toBeDefined();
  return token!;
}

async function auditActions(): Promise<string> {
  const { body } = await h.json("GET", "/admin/audit/events", { token: h.adminToken });
  return JSON.stringify(body);
}

describe("the overview's new-tenant form", () => {
  test("creates the tenant and shows its first token once: 201, no-store, the token works", async () => {
    const formToken = await formTokenOn("/admin/dashboard");
    const res = await post("/admin/dashboard/tenants", { name: `Acme ${SCRIPT}`, form_token: formToken });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("location")).toBeNull();
    const page = await res.text();
    expect(page).toContain("shown this once");
    expect(page).not.toContain(SCRIPT);
    expect(page).toContain("Acme &lt;script&gt;");
    const token = shownToken(page);
    const me = await h.json("GET", "/tenants/me", { token });
    expect(me.status).toBe(200);
    expect(me.body.roles).toEqual(["tenant_admin"]);
    expect(page).toContain(`href="${pagePath(me.body.tenant_id)}"`);
    // Listed on the overview; the token itself is nowhere but on that one page.
    const overview = await (await h.call("GET", "/admin/dashboard", { headers: cookie() })).text();
    expect(overview).toContain(`data-tenant="${me.body.tenant_id}"`);
    expect(overview).not.toContain(token);
    expect(await auditActions()).toContain('"tenant.created"');
  });

  test("refused without the form token, from another site, for a bad or a taken name", async () => {
    const formToken = await formTokenOn("/admin/dashboard");
    expect((await post("/admin/dashboard/tenants", { name: "Beta" })).status).toBe(400);
    const cross = await post(
      "/admin/dashboard/tenants",
      { name: "Beta", form_token: formToken },
      { "sec-fetch-site": "cross-site" },
    );
    expect(cross.status).toBe(401);
    const blank = await post("/admin/dashboard/tenants", { name: "   ", form_token: formToken });
    expect(blank.status).toBe(422);
    expect(blank.headers.get("content-type")).toContain("text/html");
    const long = await post("/admin/dashboard/tenants", { name: "x".repeat(600), form_token: formToken });
    expect(long.status).toBe(422);
    const oversized = await post("/admin/dashboard/tenants", {
      name: "x".repeat(20_000),
      form_token: formToken,
    });
    expect(oversized.status).toBe(413);
    expect((await post("/admin/dashboard/tenants", { name: "Beta", form_token: formToken })).status).toBe(
      201,
    );
    const taken = await post("/admin/dashboard/tenants", { name: "beta", form_token: formToken });
    expect(taken.status).toBe(409);
    const { body } = await h.json("GET", "/admin/tenants", { token: h.adminToken });
    expect(body.tenants.filter((t: { name: string }) => t.name === "Beta")).toHaveLength(1);
  });
});

describe("the tenant page's mint form", () => {
  test("mints a token for a role and a lifetime, shown once; the token holds that role and expires then", async () => {
    const t = await h.createTenant();
    const role = { name: "reader", permissions: ["memory:read"] };
    expect(
      (await h.call("POST", `/admin/roles/${t.tenant_id}`, { token: h.adminToken, body: role })).status,
    ).toBe(201);
    const page = await (await h.call("GET", pagePath(t.tenant_id), { headers: cookie() })).text();
    expect(page).toContain('<option value="reader">');
    expect(page).toContain('value="reader" list="tenant-roles"');
    const formToken = await formTokenOn(pagePath(t.tenant_id));
    const fields = {
      roles: "reader",
      sub: `bot ${SCRIPT}`,
      ttl_seconds: "86400",
      subject: "",
      form_token: formToken,
    };
    const res = await post(`${pagePath(t.tenant_id)}/tokens`, fields);
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const shown = await res.text();
    expect(shown).not.toContain(SCRIPT);
    const token = shownToken(shown);
    const me = await h.json("GET", "/tenants/me", { token });
    expect(me.body.roles).toEqual(["reader"]);
    expect(me.body.sub).toBe(`bot ${SCRIPT}`);
    // A day from now (the harness runs on the system clock: a minute of slack for the run itself).
    expect(Math.abs(Date.parse(me.body.expires_at) - Date.now() - 86_400_000)).toBeLessThan(60_000);
    expect((await h.call("GET", "/memory/facts", { token })).status).toBe(200);
    expect((await h.call("POST", "/memory/facts", { token, body: { content: "x" } })).status).toBe(403);
    const audit = await auditActions();
    expect(audit).toContain('"token.minted"');
    expect(audit).not.toContain(token);
  });

  test("a subject restricts the token; an unknown role is named; no form token, no token", async () => {
    const t = await h.createTenant();
    const formToken = await formTokenOn(pagePath(t.tenant_id));
    const at = `${pagePath(t.tenant_id)}/tokens`;
    const scoped = await post(at, {
      roles: "tenant_admin",
      ttl_seconds: "3600",
      subject: "cust-1",
      form_token: formToken,
    });
    expect(scoped.status).toBe(201);
    const me = await h.json("GET", "/tenants/me", { token: shownToken(await scoped.text()) });
    expect(me.body.subject).toBe("cust-1");
    const unknown = await post(at, {
      roles: "tenant_admin, ghost",
      ttl_seconds: "3600",
      form_token: formToken,
    });
    expect(unknown.status).toBe(422);
    const said = await unknown.text();
    expect(said).toContain("unknown role(s) &quot;ghost&quot;");
    expect(said).toContain("its roles are tenant_admin");
    const hostile = await post(at, { roles: SCRIPT, ttl_seconds: "3600", form_token: formToken });
    expect(hostile.status).toBe(422);
    expect(await hostile.text()).not.toContain(SCRIPT);
    expect((await post(at, { roles: "tenant_admin", ttl_seconds: "0", form_token: formToken })).status).toBe(
      422,
    );
    expect(
      (await post(at, { roles: "tenant_admin", ttl_seconds: "abc", form_token: formToken })).status,
    ).toBe(422);
    const none = await post(at, { roles: "tenant_admin", ttl_seconds: "3600" });
    expect(none.status).toBe(400);
    expect(await none.text()).not.toContain("minted-token");
    expect(
      (
        await post(`${pagePath("01ARZ3NDEKTSV4RRFFQ69G5FAV")}/tokens`, {
          roles: "tenant_admin",
          ttl_seconds: "60",
          form_token: formToken,
        })
      ).status,
    ).toBe(404);
  });
});

describe("the tenant page's delete form", () => {
  test("an active tenant has no delete form and its delete is a 409; a mistyped id deletes nothing", async () => {
    const t = await h.createTenant();
    const page = await (await h.call("GET", pagePath(t.tenant_id), { headers: cookie() })).text();
    expect(page).toContain("suspend it first");
    expect(page).not.toContain(`action="${pagePath(t.tenant_id)}/delete"`);
    const formToken = await formTokenOn(pagePath(t.tenant_id));
    const active = await post(`${pagePath(t.tenant_id)}/delete`, {
      confirm: t.tenant_id,
      form_token: formToken,
    });
    expect(active.status).toBe(409);
    expect(
      (await h.call("POST", `/admin/tenants/${t.tenant_id}/suspend`, { token: h.adminToken })).status,
    ).toBe(200);
    const suspended = await (await h.call("GET", pagePath(t.tenant_id), { headers: cookie() })).text();
    expect(suspended).toContain(`action="${pagePath(t.tenant_id)}/delete"`);
    const wrong = await post(`${pagePath(t.tenant_id)}/delete`, {
      confirm: `x${SCRIPT}`,
      form_token: formToken,
    });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).not.toContain(SCRIPT);
    expect((await post(`${pagePath(t.tenant_id)}/delete`, { confirm: t.tenant_id })).status).toBe(400);
    expect((await h.call("GET", pagePath(t.tenant_id), { headers: cookie() })).status).toBe(200);
  });

  test("a suspended tenant, its id typed: erased, back to the overview saying so, audited", async () => {
    const t = await h.createTenant(`Gone ${SCRIPT}`);
    expect(
      (await h.call("POST", `/admin/tenants/${t.tenant_id}/suspend`, { token: h.adminToken })).status,
    ).toBe(200);
    const formToken = await formTokenOn(pagePath(t.tenant_id));
    const res = await post(`${pagePath(t.tenant_id)}/delete`, {
      confirm: ` ${t.tenant_id} `,
      form_token: formToken,
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location.startsWith("/admin/dashboard?deleted=")).toBe(true);
    expect((await h.call("GET", pagePath(t.tenant_id), { headers: cookie() })).status).toBe(404);
    const overview = await (await h.call("GET", location.split("#")[0]!, { headers: cookie() })).text();
    expect(overview).toContain("Gone &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; deleted");
    expect(overview).not.toContain(`data-tenant="${t.tenant_id}"`);
    expect(await auditActions()).toContain('"tenant.deleted"');
  });
});

describe("the search box's controls", () => {
  test("tags, status, trust and both time axes reach the search; a bad one is a 422 naming it", async () => {
    const t = await h.createTenant();
    const write = (body: object) => h.json("POST", "/memory/decisions", { token: t.token, body });
    expect((await write({ content: "Ship the pricing page", tags: ["web"] })).status).toBe(201);
    expect((await write({ content: "Ship the pricing email", tags: ["mail"] })).status).toBe(201);
    const search = (q: Record<string, string>) =>
      h.call("GET", `${pagePath(t.tenant_id)}/search?${new URLSearchParams(q)}`, { headers: cookie() });
    const rows = async (q: Record<string, string>) => {
      const res = await search(q);
      expect(res.status).toBe(200);
      return ((await res.text()).match(/data-result="/g) ?? []).length;
    };
    const base = { q: "ship pricing", tags: "", status: "", min_trust: "", valid_at: "", as_of: "" };
    expect(await rows(base)).toBe(2);
    expect(await rows({ ...base, tags: "web" })).toBe(1);
    expect(await rows({ ...base, status: "resolved" })).toBe(0);
    expect(await rows({ ...base, status: "open" })).toBe(2);
    expect(await rows({ ...base, min_trust: "verified" })).toBe(0);
    expect(await rows({ ...base, as_of: "2000-01-01T00:00:00Z" })).toBe(0);
    const set = await (await search({ ...base, tags: "web" })).text();
    expect(set).toContain('<details class="controls" open>');
    expect(set).toContain('name="tags" value="web"');
    const bad = await search({ ...base, min_trust: SCRIPT });
    expect(bad.status).toBe(422);
    const said = await bad.text();
    expect(said).toContain("min_trust");
    expect(said).not.toContain(SCRIPT);
    const longTag = await search({ ...base, tags: "x".repeat(100) });
    expect(longTag.status).toBe(422);
    // Refused by the page's own query schema, which states the search's tag limits.
    expect(await longTag.text()).toContain("query /tags: Expected at most 64 comma-separated tags");
    const manyTags = await search({ ...base, tags: Array.from({ length: 65 }, (_, i) => `t${i}`).join(",") });
    expect(manyTags.status).toBe(422);
  });
});
