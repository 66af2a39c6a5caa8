import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's package (installed by .ci/run); CHROMIUM_PATH overrides it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Where the browser tests leave their screenshots. */
export const ARTIFACTS = "test-artifacts";

/** Headless chromium for the browser tests; a clear error when the package is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: run .ci/run, or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  });
}

/** The two widths the dashboard is checked at: a desktop's and a phone's. */
export const DESKTOP_AND_PHONE = [
  { viewport: { width: 1280, height: 900 } },
  { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 },
];

/** Signs in through the dashboard's own form at `base` with the operator's token. */
export async function signInToDashboard(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/admin/dashboard`);
  await page.fill("input[name=token]", token);
  await Promise.all([page.waitForURL(`${base}/admin/dashboard`), page.click("button[type=submit]")]);
}

/**
 * A page signed in to the dashboard at `base`, in a fresh context of those options (a width of
 * DESKTOP_AND_PHONE), recording the message of every dialog that opens (and dismissing it): a
 * page that runs injected script shows it there.
 */
export async function signedInDashboardPage(
  browser: Browser,
  base: string,
  token: string,
  options: (typeof DESKTOP_AND_PHONE)[number],
): Promise<{ context: BrowserContext; page: Page; dialogs: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signInToDashboard(page, base, token);
  return { context, page, dialogs };
}
