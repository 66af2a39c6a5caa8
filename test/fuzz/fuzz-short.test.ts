/**
 * The CI version of `bun run fuzz` (test/fuzz/run.ts): 2,000 generated requests over every route of
 * the OpenAPI document, against a real server process. No 5xx, no stack trace or planted secret in
 * any answer, none left unanswered past the deadline, every answer of the app one the document
 * allows, the server healthy between batches, and its memory bounded. Seeded: `TEST_SEED=<seed>`
 * replays a failure.
 */
import { expect, test } from "bun:test";
import { testSeed } from "../helpers/random.ts";
import { runCampaign } from "./campaign.ts";

const REQUESTS = 2_000;
const RSS_GROWTH_LIMIT_MIB = 384;

test(`${REQUESTS} fuzzed requests: no 5xx, no leak, the server stays up and bounded`, async () => {
  const seed = testSeed();
  const f = await runCampaign({ requests: REQUESTS, seed, rssGrowthLimitMiB: RSS_GROWTH_LIMIT_MIB });
  const failures = f.failures.map(
    (e) => `${e.kind} ${e.operation} → ${e.status}: ${e.detail}\n  ${e.request}`,
  );
  // Everything a failure needs to be replayed and understood, in the assertion's own diff.
  expect({ seed, failures }).toEqual({ seed, failures: [] });
  expect(f.tried).toBe(REQUESTS);
  expect(f.operations.missing).toEqual([]);
  expect({
    fiveXX: f.fiveXX,
    stackTraces: f.stackTraces,
    secretLeaks: f.secretLeaks,
    timeouts: f.timeouts,
  }).toEqual({
    fiveXX: 0,
    stackTraces: 0,
    secretLeaks: 0,
    timeouts: 0,
  });
  // Bun's own refusals (no X-Request-Id: 431, 505, framing 400s) are not the app's, and not checked.
  expect(f.nonConformant).toEqual({ count: 0, examples: [] });
  expect(f.health).toEqual({ checks: Math.ceil(REQUESTS / 250), failures: 0, serverExited: false });
  expect(f.rssMiB.peak - f.rssMiB.start).toBeLessThanOrEqual(RSS_GROWTH_LIMIT_MIB);
}, 120_000);
