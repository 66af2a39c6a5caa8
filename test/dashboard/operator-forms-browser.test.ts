/**
 * The dashboard's create, mint and delete forms and the search box's controls in headless chromium,
 * at a desktop's width (1280 px) and a phone's (390 px): each page fits without scrolling sideways, a
 * `<script>` typed into every field stays text (no dialog opens), a token is shown once on its own
 * page, the delete form needs the tenant's id typed, and each form posted by the browser without the
 * page's token is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { DESKTOP_AND_PHONE, launchChromium, signedInDashboardPage } from "../helpers/chromium.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const SCRIPT = `<script>alert('owned')</script><img src=x onerror="alert('img')">`;
const WIDTHS = DESKTOP_AND_PHONE;

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
  await h?.close();
});

/** A signed-in page at that width, recording every dialog that opens. */
function signedIn(options: (typeof WIDTHS)[number]) {
  return signedInDashboardPage(browser, base, h.adminToken, options);
}

function fits(page: Page): Promise<boolean> {
  return page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");
}

/** Clicks `button` and waits for the page it leads to, at an address matching `next`. */
async function submit(page: Page, button: string, next: RegExp): Promise<void> {
  await Promise.all([page.waitForURL(next), page.click(button)]);
}

describe("the operator's forms in chromium", () => {
  WIDTHS.forEach((options, i) => {
    const width = options.viewport.width;
    test(`at ${width} px: create a tenant, then mint a token for it; each token shown once; scripts inert`, async () => {
      const { context, page, dialogs } = await signedIn(options);
      await page.fill("#new-tenant-name", `Tenant ${i} ${SCRIPT}`);
      await submit(page, "#new-tenant button[type=submit]", /\/admin\/dashboard\/tenants$/);
      expect(await page.locator("#token h2").textContent()).toContain(`Tenant ${i} ${SCRIPT}`);
      const first = await page.inputValue("#minted-token");
      expect(first.split(".")).toHaveLength(3);
      expect(await page.locator("script, img").count()).toBe(0);
      expect(await fits(page)).toBe(true);
      await submit(page, "#token a", /\/admin\/dashboard\/tenants\/[0-9A-Z]{26}$/);
      await page.fill("#mint-roles", "tenant_admin");
      await page.fill("#mint-sub", `bot ${SCRIPT}`);
      await page.selectOption("#mint-ttl", "86400");
      await page.fill("#mint-subject", "cust-1");
      await submit(page, "#tokens button[type=submit]", /\/tokens$/);
      const minted = await page.inputValue("#minted-token");
      expect(minted).not.toBe(first);
      expect(await page.locator("#token label").textContent()).toContain(`bot ${SCRIPT}`);
      const me = await h.json("GET", "/tenants/me", { token: minted });
      expect(me.body.subject).toBe("cust-1");
      expect(await fits(page)).toBe(true);
      expect(dialogs).toEqual([]);
      await context.close();
    });

    test(`at ${width} px: the delete form needs the id typed; the search box's controls filter`, async () => {
      const t = await h.createTenant(`Doomed ${i} ${SCRIPT}`);
      expect(
        (
          await h.call("POST", "/memory/facts", {
            token: t.token,
            body: { content: "Acme pays net 30", tags: ["terms"] },
          })
        ).status,
      ).toBe(201);
      expect(
        (await h.call("POST", "/memory/facts", { token: t.token, body: { content: "Acme pays by card" } }))
          .status,
      ).toBe(201);
      const { context, page, dialogs } = await signedIn(options);
      await page.goto(`${base}/admin/dashboard/tenants/${t.tenant_id}`);
      await page.click("#search details.controls summary");
      await page.fill("#search input[name=q]", "acme pays");
      await page.fill("#search input[name=tags]", `terms`);
      await Promise.all([page.waitForURL(/\/search\?/), page.click("#search button[type=submit]")]);
      expect(await page.locator("#results tr[data-result]").count()).toBe(1);
      expect(await fits(page)).toBe(true);
      await page.goto(`${base}/admin/dashboard/tenants/${t.tenant_id}`);
      expect(await page.locator("#delete form").count()).toBe(0);
      await Promise.all([page.waitForURL(/status=suspended/), page.click("text=Suspend tenant")]);
      // The browser's own post, with the cookie, from this origin, but without the page's token.
      const forged = await page.request.post(`${base}/admin/dashboard/tenants/${t.tenant_id}/delete`, {
        form: { confirm: t.tenant_id },
        headers: { origin: base, "sec-fetch-site": "same-origin" },
      });
      expect(forged.status()).toBe(400);
      // A wrong id: the browser holds the form back (its pattern), nothing is posted.
      await page.fill("#delete-confirm", `nope ${SCRIPT}`);
      await page.click("#delete button[type=submit]");
      expect(
        await page.evaluate<boolean>("document.querySelector('#delete-confirm').validity.patternMismatch"),
      ).toBe(true);
      expect(page.url()).toContain(t.tenant_id);
      await page.fill("#delete-confirm", t.tenant_id);
      await Promise.all([page.waitForURL(/deleted=/), page.click("#delete button[type=submit]")]);
      expect(await page.locator("p.notice").textContent()).toContain(`Doomed ${i} ${SCRIPT} deleted`);
      expect(await page.locator(`#tenants tr[data-tenant="${t.tenant_id}"]`).count()).toBe(0);
      expect(await page.locator("script, img").count()).toBe(0);
      expect(await fits(page)).toBe(true);
      expect(dialogs).toEqual([]);
      await context.close();
    });
  });
});
