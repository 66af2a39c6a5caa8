/**
 * The operator dashboard in a real browser: Debian's chromium, driven by playwright-core. Signs in
 * through the page's own form, reads a tenant's counts and charts, saves a screenshot under
 * test-artifacts/, and checks the cookie's attributes and that it does not authorise a POST. At a
 * phone's width (390 px), the overview and a tenant's page fit without scrolling sideways, the
 * row's link opens the tenant's page, its replay button replays a dead letter and its discard
 * button discards one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { ARTIFACTS, launchChromium } from "../helpers/chromium.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";

const HOSTILE = `<img src=x onerror="document.title='owned'"><script>document.title='owned'</script> & "Co"`;

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let base: string;
let tenantId: string;

beforeAll(async () => {
  h = await startHarness();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  const tenant = await h.createTenant(HOSTILE);
  tenantId = tenant.tenant_id;
  for (const content of ["Acme pays net 30", "Acme's buyer is Ada"])
    expect((await h.call("POST", "/memory/facts", { token: tenant.token, body: { content } })).status).toBe(
      201,
    );
  expect(
    (await h.call("POST", "/memory/decisions", { token: tenant.token, body: { content: "Offer 10%" } }))
      .status,
  ).toBe(201);
  // A delivery with a bad signature: the source's rejected-by-status counter moves.
  h.env[`PAYMENTS_WEBHOOK_SECRET_${tenantId}`] = "whsec_dGVzdA==";
  const refused = await h.call("POST", `/webhooks/payments/${tenantId}`, {
    body: { id: "evt_1" },
    headers: { "stripe-signature": "t=1,v1=00" },
  });
  expect(refused.status).toBe(401);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
  await h?.close();
});

async function signIn(page: Page, at = base, token = h.adminToken): Promise<void> {
  const first = await page.goto(`${at}/admin/dashboard`);
  expect(first?.status()).toBe(401);
  await page.fill("input[name=token]", token);
  await Promise.all([page.waitForURL(`${at}/admin/dashboard`), page.click("button[type=submit]")]);
}

/** Whether the page is wider than the window: a phone would scroll it sideways. */
function overflowsSideways(page: Page): Promise<boolean> {
  // A string: the test's TypeScript has no DOM types; the browser evaluates it.
  return page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth");
}

describe("the dashboard in headless chromium", () => {
  test("sign in through the form; the tenant's name, its counts and the charts are shown; a screenshot is saved", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    const row = page.locator(`#tenants tr[data-tenant="${tenantId}"]`);
    // The hostile name is text, not markup: nothing ran, nothing was injected.
    expect(await row.locator("td").first().textContent()).toContain(HOSTILE);
    expect(await page.title()).toBe("Dashboard · typed-memory runtime");
    expect(await page.locator("script, img").count()).toBe(0);
    const cells = await row.locator("td.n").allInnerTexts();
    // decision, exception, fact, workflow, relationship, outcome, total, dead letters
    expect(cells).toEqual(["1", "0", "2", "0", "0", "0", "3", "0"]);
    const writes = page.locator('#writes svg[role=img] g.column rect[fill="#59a14f"]');
    expect(await writes.count()).toBe(1);
    expect(await writes.locator("title").textContent()).toMatch(/fact: 2$/);
    const payments = page.locator('#webhooks tr[data-source="payments"]');
    expect((await payments.locator("td").last().textContent())?.trim()).toBe("401: 1");
    expect(await page.locator('#webhooks svg[role=img] g.bar[data-label="payments"]').count()).toBe(1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });
    expect(existsSync(`${ARTIFACTS}/dashboard.png`)).toBe(true);
    await context.close();
  });

  test("the cookie is HttpOnly, SameSite=Strict, scoped to /admin, and refused on a POST route", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({
      name: "memory_admin",
      httpOnly: true,
      sameSite: "Strict",
      path: "/admin",
    });
    expect(cookie!.secure).toBe(false); // plain http here; over https the flag is set (route test)
    // The browser context sends the cookie with its requests: a GET admin route accepts it ...
    const listed = await page.request.get(`${base}/admin/tenants`);
    expect(listed.status()).toBe(200);
    // ... a POST route does not.
    const created = await page.request.post(`${base}/admin/tenants`, { data: { name: "Cookie Co" } });
    expect(created.status()).toBe(401);
    expect((await created.json()).code).toBe("unauthorized");
    await context.close();
  });

  test("signing out clears the cookie and shows the form again", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page);
    const response = await Promise.all([
      page.waitForURL(`${base}/admin/dashboard`),
      page.click("text=Sign out"),
    ]);
    expect(response).toBeDefined();
    expect(await context.cookies()).toEqual([]);
    expect(await page.locator("input[name=token]").count()).toBe(1);
    await context.close();
  });
});

describe("at a phone's width: the overview, a tenant's page and its replay and discard buttons", () => {
  const PHONE = {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 1,
  };
  const SCRIPT = "<script>document.title='owned'</script> Acme's <b>buyer</b> is Ada";
  // Its own runtime: what this block writes and replays leaves the figures above as they are.
  let phone: Harness;
  let phoneServer: ReturnType<typeof Bun.serve>;
  let at: string;
  let id: string;
  let eventId: string;

  beforeAll(async () => {
    phone = await startHarness();
    phoneServer = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => phone.app.handle(request),
    });
    at = `http://127.0.0.1:${phoneServer.port}`;
    const tenant = await phone.createTenant(`${HOSTILE} Worldwide`);
    id = tenant.tenant_id;
    const wrote = await phone.call("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: SCRIPT },
    });
    expect(wrote.status).toBe(201);
    // A ✅ before its message: a dead letter; once the message is in, a replay makes the decision.
    const reaction = {
      type: "reaction_added",
      user: "U3",
      reaction: "white_check_mark",
      item: { channel: "C1", ts: "1.1" },
    };
    eventId = "C1:1.1:reaction_added";
    expect((await phone.runtime.bridge.deliver(id, reaction as never)).dead_lettered).toEqual([eventId]);
    await phone.runtime.bridge.deliver(id, {
      type: "message",
      channel: "C1",
      user: "U1",
      text: "Ship it",
      ts: "1.1",
    } as never);
    expect((await phone.call("GET", "/admin/tenants", { token: tenant.token })).status).toBe(403);
  });

  afterAll(async () => {
    phoneServer?.stop(true);
    await phone?.close();
  });

  test("the overview fits 390 px, and the tenant's row links to its page", async () => {
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    await signIn(page, at, phone.adminToken);
    expect(await overflowsSideways(page)).toBe(false);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-phone.png`, fullPage: true });
    await Promise.all([
      page.waitForURL(`${at}/admin/dashboard/tenants/${id}`),
      page.click(`#tenants tr[data-tenant="${id}"] a`),
    ]);
    expect(await page.locator("#tenant h2").textContent()).toContain(HOSTILE);
    await context.close();
  });

  test("the tenant's page fits 390 px; hostile content stays text; nothing is loaded from elsewhere", async () => {
    const context = await browser.newContext(PHONE);
    const requested: string[] = [];
    context.on("request", (request) => requested.push(request.url()));
    const page = await context.newPage();
    await signIn(page, at, phone.adminToken);
    const response = await page.goto(`${at}/admin/dashboard/tenants/${id}`);
    expect(response?.status()).toBe(200);
    expect(await page.evaluate<number>("window.innerWidth")).toBe(390);
    expect(await overflowsSideways(page)).toBe(false);
    expect(await page.title()).toContain(HOSTILE);
    expect(await page.locator("script, img, b:text('buyer')").count()).toBe(0);
    expect(await page.locator("#entries td.content", { hasText: "buyer" }).textContent()).toBe(SCRIPT);
    // Every entry row shows its trust and origin (docs/trust-and-provenance.md), as text.
    const rows = await page.locator("#entries tbody tr[data-entry]").count();
    expect(rows).toBeGreaterThan(0);
    expect(await page.locator("#entries td[data-trust] span.origin").count()).toBe(rows);
    expect(await page.locator(`#dead-letters tr[data-dead-letter="${eventId}"]`).count()).toBe(1);
    expect(await page.locator('#connectors tr[data-connector="messaging"] b').textContent()).toBe("active");
    expect(await page.locator("#denials tbody tr").count()).toBe(1);
    await page.screenshot({ path: `${ARTIFACTS}/tenant-page-phone.png`, fullPage: true });
    expect(existsSync(`${ARTIFACTS}/tenant-page-phone.png`)).toBe(true);
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(`${at}/`))).toEqual([]);
    await context.close();
  });

  test("the replay button replays the dead letter and comes back to the page saying so", async () => {
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    await signIn(page, at, phone.adminToken);
    await page.goto(`${at}/admin/dashboard/tenants/${id}`);
    await Promise.all([
      page.waitForURL(/\?replayed=replayed&/),
      page.click(`#dead-letters tr[data-dead-letter="${eventId}"] button:text("Replay")`),
    ]);
    expect(await page.locator("p.notice").textContent()).toContain(`Event ${eventId} replayed`);
    expect(await page.locator(`#dead-letters tr[data-dead-letter="${eventId}"] button`).count()).toBe(0);
    expect(await page.locator("#dead-letters h2").textContent()).toContain("0 open");
    expect(await overflowsSideways(page)).toBe(false);
    await context.close();
  });
  test("the discard button discards a dead letter: kept on the page as discarded, no button left", async () => {
    // A tenant of its own: the replay test's tenant keeps its one dead letter.
    const other = await phone.createTenant("Discard Co");
    const letterId = "C1:9.9:reaction_added";
    const reaction = {
      type: "reaction_added",
      user: "U3",
      reaction: "white_check_mark",
      item: { channel: "C1", ts: "9.9" },
    };
    const delivered = await phone.runtime.bridge.deliver(other.tenant_id, reaction as never);
    expect(delivered.dead_lettered).toEqual([letterId]);
    const context = await browser.newContext(PHONE);
    const page = await context.newPage();
    await signIn(page, at, phone.adminToken);
    await page.goto(`${at}/admin/dashboard/tenants/${other.tenant_id}`);
    const row = page.locator(`#dead-letters tr[data-dead-letter="${letterId}"]`);
    expect(await row.locator("button").allInnerTexts()).toEqual(["Replay", "Discard"]);
    // Both buttons side by side still fit the phone's width.
    expect(await overflowsSideways(page)).toBe(false);
    await Promise.all([page.waitForURL(/\?discarded=/), row.locator('button:text("Discard")').click()]);
    expect(await page.locator("p.notice").textContent()).toContain(`Event ${letterId} discarded`);
    expect(await row.locator("button").count()).toBe(0);
    expect(await row.textContent()).toContain("by operator");
    expect(await page.locator("#dead-letters h2").textContent()).toContain("0 open");
    expect(await overflowsSideways(page)).toBe(false);
    await context.close();
  });
});
