import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

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
