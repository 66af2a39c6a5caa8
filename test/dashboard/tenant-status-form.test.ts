/**
 * The tenant page's suspend and resume button (`POST /admin/dashboard/tenants/{tenant_id}/status`),
 * black-box through app.handle: refused without the page's form token or from another site, a bad
 * status a 422, and with both it suspends (the tenant's token then refused) and resumes, audited as
 * the admin API's suspend and resume are.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const cookieOf = (token: string) => ({ cookie: `memory_admin=${token}` });

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const pagePath = (id: string) => `/admin/dashboard/tenants/${id}`;

async function formTokenOf(id: string): Promise<string> {
  const text = await (await h.call("GET", pagePath(id), { headers: cookieOf(h.adminToken) })).text();
  const token = text.match(/name="form_token" value="([^"]+)"/)?.[1];
  expect(token).toBeDefined();
  return token!;
}

function post(id: string, fields: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) {
  return h.call("POST", `${pagePath(id)}/status`, {
    raw: new URLSearchParams(fields).toString(),
    headers: { ...FORM, ...cookieOf(h.adminToken), ...headers },
  });
}

describe("POST /admin/dashboard/tenants/{tenant_id}/status", () => {
  test("refused without the page's form token, from another site, or with a bad status", async () => {
    const t = await h.createTenant();
    const formToken = await formTokenOf(t.tenant_id);
    expect((await post(t.tenant_id, { status: "suspended" })).status).toBe(400);
    expect((await post(t.tenant_id, { status: "suspended", form_token: "forged" })).status).toBe(400);
    const cross = await post(
      t.tenant_id,
      { status: "suspended", form_token: formToken },
      { "sec-fetch-site": "cross-site" },
    );
    expect(cross.status).toBe(401);
    const bad = await post(t.tenant_id, { status: "<script>alert(1)</script>", form_token: formToken });
    expect(bad.status).toBe(422);
    expect(await bad.text()).not.toContain("<script>alert");
    expect((await post("nope", { status: "suspended", form_token: formToken })).status).toBe(404);
    // Nothing changed: the tenant's token still works.
    expect((await h.call("GET", "/memory/facts", { token: t.token })).status).toBe(200);
  });

  test("suspends, then resumes, each redirecting back with a notice, audited", async () => {
    const t = await h.createTenant();
    const formToken = await formTokenOf(t.tenant_id);
    const page = await (await h.call("GET", pagePath(t.tenant_id), { token: h.adminToken })).text();
    expect(page).toContain(
      `action="${pagePath(t.tenant_id)}/status"><input type="hidden" name="status" value="suspended">`,
    );
    const suspended = await post(t.tenant_id, { status: "suspended", form_token: formToken });
    expect(suspended.status).toBe(303);
    expect(suspended.headers.get("location")).toBe(`${pagePath(t.tenant_id)}?status=suspended#tenant`);
    expect((await h.call("GET", "/memory/facts", { token: t.token })).status).toBe(403);
    const after = await (
      await h.call("GET", `${pagePath(t.tenant_id)}?status=suspended`, { token: h.adminToken })
    ).text();
    expect(after).toContain("Tenant suspended.");
    expect(after).toContain(
      '<input type="hidden" name="status" value="active"><input type="hidden" name="form_token"',
    );
    const resumed = await post(t.tenant_id, { status: "active", form_token: formToken });
    expect(resumed.status).toBe(303);
    expect((await h.call("GET", "/memory/facts", { token: t.token })).status).toBe(200);
    const { body } = await h.json("GET", "/admin/audit/events", { token: h.adminToken });
    const actions = JSON.stringify(body);
    expect(actions).toContain('"tenant.suspended"');
    expect(actions).toContain('"tenant.resumed"');
  });
});
