/**
 * Regression (found by the fuzz, test/fuzz/): a tenant that cannot answer for a moment, because it
 * is restarting after an import, took the whole operator dashboard down with a 503. The page now
 * renders, shows that tenant as unavailable, and every other tenant's figures as usual.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The text of each cell of the table rows carrying `data-tenant="<id>"` (tenants, then revenue). */
function rowsText(page: string, tenantId: string): string[] {
  const rows = [...page.matchAll(new RegExp(`<tr data-tenant="${tenantId}">([\\s\\S]*?)</tr>`, "g"))];
  return rows.map((r) =>
    r[1]!
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim(),
  );
}

test("a tenant restarting after an import is shown as unavailable; the page is still a 200", async () => {
  const busy = await h.createTenant("Dashboard Busy");
  const calm = await h.createTenant("Dashboard Calm");
  const written = await h.json("POST", "/memory/facts", {
    token: calm.token,
    body: { content: "Calm has 3 seats" },
  });
  expect(written.status).toBe(201);
  // An import that ended (here: aborted) leaves the tenant refusing every message until it restarts.
  const actor = h.runtime.services.tenant(busy.tenant_id);
  const { session } = await actor.ask({ type: "import.begin" });
  await actor.ask({ type: "import.abort", session });
  await expect(
    actor.ask({ type: "tenant.stats", fromDay: "2026-01-01", toDay: "2026-01-02" }),
  ).rejects.toMatchObject({
    status: 503,
  });

  const res = await h.call("GET", "/admin/dashboard", { token: h.adminToken });
  const page = await res.text();
  expect(res.status).toBe(200);
  expect(rowsText(page, busy.tenant_id)).toEqual([
    `Dashboard Busy ${busy.tenant_id} active unavailable: the tenant is restarting after an import: retry shortly`,
    "Dashboard Busy unavailable: the tenant is restarting after an import: retry shortly",
  ]);
  expect(rowsText(page, calm.tenant_id)[0]).toBe(`Dashboard Calm ${calm.tenant_id} active 0 0 1 0 0 0 1 0`);
});
