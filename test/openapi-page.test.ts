/**
 * The API page at /openapi in a real browser (Debian's chromium, driven by playwright-core) against
 * a real listening server, with the network limited to the service: every request for another
 * origin is aborted and recorded, and none may be made. The page must render the document's
 * operations from the files this service serves (src/http/openapi-viewer.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { ARTIFACTS, launchChromium } from "./helpers/chromium.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
type Json = Record<string, any>;

let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let browser: Browser;
let base: string;
let doc: Json;

beforeAll(async () => {
  h = await startHarness();
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  doc = (await (await fetch(`${base}/openapi/json`)).json()) as Json;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.stop(true);
  await h?.close();
});

/** Every operation of the document, as its operationId and summary. */
function operations(): Array<{ operationId: string; summary: string }> {
  return Object.values<Json>(doc.paths).flatMap((item) =>
    Object.values<Json>(item).map((op) => ({ operationId: op.operationId, summary: op.summary })),
  );
}

/**
 * The titles listed under "Schemas". Swagger UI virtualizes a list of 100 schemas or more (a
 * `.models-scroll` box rendering only the rows in view), so the box is scrolled through a view at a
 * time, as a reader would, and each view's titles gathered: a view's rows overlap the last one's
 * (the list renders a few rows beyond each edge), so no schema is skipped.
 */
async function schemaTitles(page: Page, count: number): Promise<string[]> {
  const titles = new Set<string>();
  const gather = async () => {
    for (const t of await page.locator("section.models .json-schema-2020-12__title").allInnerTexts())
      titles.add(t.trim());
  };
  await gather();
  const scroller = page.locator("section.models .models-scroll");
  if ((await scroller.count()) === 0) return [...titles];
  const rows = page.locator("section.models .models-scroll [data-index]");
  const lastShown = async () => Number(await rows.last().getAttribute("data-index"));
  for (let last = await lastShown(); last < count - 1; last = await lastShown()) {
    await scroller.evaluate((box) => {
      box.scrollTop += box.clientHeight;
    });
    await page
      .locator(`section.models .models-scroll [data-index="${last + 1}"]`)
      .waitFor({ state: "attached" });
    await gather();
  }
  return [...titles];
}

describe("the API page in headless chromium, offline but for the service", () => {
  test("renders every operation of the document from this service's files; no request leaves for another origin", async () => {
    const context = await browser.newContext();
    const outside: string[] = [];
    const served: string[] = [];
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.origin === base) {
        served.push(url.pathname);
        return route.continue();
      }
      outside.push(url.href);
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));

    const response = await page.goto(`${base}/openapi`);
    expect(response?.status()).toBe(200);
    const all = operations();
    const blocks = page.locator(".opblock");
    await blocks.first().waitFor({ timeout: 20_000 });
    expect(await blocks.count()).toBe(all.length);
    expect(await page.locator(".info .title").first().textContent()).toContain(doc.info.title);

    // Operation names as the document gives them: summaries and operation ids.
    const texts = await page.locator(".opblock-summary").allInnerTexts();
    const shown = texts.join("\n");
    for (const { operationId, summary } of all) {
      expect({ operationId, shown: shown.includes(operationId) }).toEqual({ operationId, shown: true });
      expect({ summary, shown: shown.includes(summary.split("\n")[0]!.slice(0, 40)) }).toEqual({
        summary,
        shown: true,
      });
    }

    // Every named component schema is listed under "Schemas".
    const names = Object.keys(doc.components.schemas);
    expect((await schemaTitles(page, names.length)).sort()).toEqual(names.sort());

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/openapi.png` });

    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    expect(served).toEqual(
      expect.arrayContaining([
        "/openapi",
        "/openapi/assets/swagger-ui.css",
        "/openapi/assets/swagger-ui-bundle.js",
        "/openapi/assets/init.js",
        "/openapi/json",
      ]),
    );
    await context.close();
  });

  test("an operation opens with its request body and responses resolved from the named schemas", async () => {
    const context = await browser.newContext();
    const outside: string[] = [];
    await context.route("**/*", (route) => {
      if (new URL(route.request().url()).origin === base) return route.continue();
      outside.push(route.request().url());
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    await page.goto(`${base}/openapi#/memory/postMemoryFacts`);
    const block = page.locator("#operations-memory-postMemoryFacts");
    await block.waitFor({ timeout: 20_000 });
    await block.locator(".opblock-body").waitFor({ timeout: 20_000 });
    const body = (await block.textContent()) ?? "";
    // The documented headers and statuses of a write: the 201's Location, the request id.
    for (const text of ["201", "Location", "X-Request-Id", "Idempotent-Replayed", "application/problem+json"])
      expect({ text, shown: body.includes(text) }).toEqual({ text, shown: true });
    expect(outside).toEqual([]);
    await context.close();
  });
});
