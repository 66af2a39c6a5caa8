/**
 * An entry's page and the tenant's search box in headless chromium, at a desktop's width (1280 px)
 * and a phone's (390 px): each fits without scrolling sideways, a `<script>` and an event handler in
 * the entry's content, tags and data and in the search words stay text (no dialog opens), results
 * link to their entries, and the entry's links lead to the entries it names. The suspend button
 * works, and its form posted without the page's token is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { ManualClock } from "../../src/runtime/clock.ts";
import { DESKTOP_AND_PHONE, launchChromium, signedInDashboardPage } from "../helpers/chromium.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const SCRIPT = `<script>alert('owned')</script><img src=x onerror="alert('img')"> ${"long-unbroken-word".repeat(12)}`;
const WIDTHS = DESKTOP_AND_PHONE;

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let base: string;
let tenantId: string;
let first: string;
let second: string;

beforeAll(async () => {
  // The harness clock: the newer version becomes valid a minute on, no wall-clock wait.
  const clock = new ManualClock(Date.now());
  h = await startHarness({ clock });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  const t = await h.createTenant(SCRIPT.slice(0, 100));
  tenantId = t.tenant_id;
  const a = await h.json("POST", "/memory/facts", {
    token: t.token,
    body: { content: SCRIPT, tags: [SCRIPT.slice(0, 60)], data: { note: SCRIPT } },
  });
  first = a.body.id;
  clock.advance(60_000);
  const b = await h.json("POST", "/memory/facts", {
    token: t.token,
    body: { content: `${SCRIPT} v2`, supersedes: first },
  });
  expect(b.status).toBe(201);
  second = b.body.id;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
  await h?.close();
});

/** A signed-in page on the tenant's page at that width, recording every dialog that opens. */
async function tenantPageAt(options: (typeof WIDTHS)[number]) {
  const signed = await signedInDashboardPage(browser, base, h.adminToken, options);
  await signed.page.goto(`${base}/admin/dashboard/tenants/${tenantId}`);
  return signed;
}

const entryUrl = (id: string) => `${base}/admin/dashboard/tenants/${tenantId}/entries/fact/${id}`;

describe("an entry's page in chromium", () => {
  for (const options of WIDTHS) {
    test(`at ${options.viewport.width} px: fits, hostile content inert, links lead on`, async () => {
      const { context, page, dialogs } = await tenantPageAt(options);
      await Promise.all([page.waitForURL(entryUrl(second)), page.click(`a[data-entry-link="${second}"]`)]);
      expect(await page.locator("[data-field=content]").textContent()).toBe(`${SCRIPT} v2`);
      expect(await page.locator("script, img").count()).toBe(0);
      expect(await page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth")).toBe(
        false,
      );
      await Promise.all([
        page.waitForURL(entryUrl(first)),
        page.click(`#links li[data-relation=supersedes] a`),
      ]);
      expect(await page.locator("#links li[data-relation=superseded_by] a").textContent()).toBe(second);
      expect(await page.locator("pre").textContent()).toContain(SCRIPT.replace(/"/g, '\\"'));
      expect(await page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth")).toBe(
        false,
      );
      expect(dialogs).toEqual([]);
      expect(await page.title()).toStartWith("fact ");
      await context.close();
    });
  }

  for (const options of WIDTHS) {
    test(`at ${options.viewport.width} px: the search box finds entries; hostile words inert`, async () => {
      const { context, page, dialogs } = await tenantPageAt(options);
      const words = `long-unbroken-word "><script>alert('q')</script><img src=x onerror=alert('q')>`;
      await page.fill("form.search input[name=q]", words);
      await page.selectOption("form.search select[name=category]", "fact");
      await Promise.all([page.waitForURL(/\/search\?/), page.click("form.search button[type=submit]")]);
      expect(await page.inputValue("form.search input[name=q]")).toBe(words);
      expect(await page.locator("#results tr[data-result]").count()).toBeGreaterThan(0);
      expect(await page.locator("script, img").count()).toBe(0);
      expect(await page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth")).toBe(
        false,
      );
      await Promise.all([
        page.waitForURL(/\/entries\/fact\//),
        page.click("#results tr[data-result] a[data-entry-link]"),
      ]);
      expect(dialogs).toEqual([]);
      await context.close();
    });
  }

  test("the suspend button works; the same form posted without the page's token is refused", async () => {
    const { context, page, dialogs } = await tenantPageAt(WIDTHS[1]!);
    const action = `${base}/admin/dashboard/tenants/${tenantId}/status`;
    // The browser's own request, with the cookie, from this origin, but without the form token.
    const forged = await page.request.post(action, {
      form: { status: "suspended" },
      headers: { origin: base, "sec-fetch-site": "same-origin" },
    });
    expect(forged.status()).toBe(400);
    expect(await page.locator("#tenant .status-active").count()).toBe(1);
    await Promise.all([page.waitForURL(/status=suspended/), page.click("text=Suspend tenant")]);
    expect(await page.locator("#tenant .status-suspended").count()).toBe(1);
    await Promise.all([page.waitForURL(/status=active/), page.click("text=Resume tenant")]);
    expect(await page.locator("#tenant .status-active").count()).toBe(1);
    expect(dialogs).toEqual([]);
    await context.close();
  });
});
