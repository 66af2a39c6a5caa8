/**
 * The CI version of `bun run fuzz` (test/fuzz/run.ts), against a real server process: first the
 * contract checks over every operation of the served document (20 positive requests generated
 * valid, none refused as invalid; 20 made invalid by one mutation, each answered 4xx; exceptions
 * only as contract-exceptions.ts explains them), then 2,000 generated requests over every route. No
 * 5xx, no stack trace or planted secret in any answer, none left unanswered past the deadline,
 * every answer of the app one the document allows, the server healthy between batches, and its
 * memory bounded. Seeded: `TEST_SEED=<seed>` replays a failure.
 */
import { expect, test } from "bun:test";
import { testSeed } from "../helpers/random.ts";
import { runCampaign } from "./campaign.ts";

const REQUESTS = 2_000;
const PER_OPERATION = 20;
const RSS_GROWTH_LIMIT_MIB = 384;

test(`contract checks (${PER_OPERATION}+${PER_OPERATION} per operation), then ${REQUESTS} fuzzed requests: no disagreement, no 5xx, no leak, the server stays up and bounded`, async () => {
  const seed = testSeed();
  const f = await runCampaign({
    requests: REQUESTS,
    seed,
    rssGrowthLimitMiB: RSS_GROWTH_LIMIT_MIB,
    contract: { positivePerOperation: PER_OPERATION, negativePerOperation: PER_OPERATION },
  });
  const failures = f.failures.map(
    (e) => `${e.kind} ${e.operation} → ${e.status}: ${e.detail}\n  ${e.request}`,
  );
  // Everything a failure needs to be replayed and understood, in the assertion's own diff.
  expect({ seed, failures }).toEqual({ seed, failures: [] });
  const contract = f.contract!;
  expect({ seed, disagreements: contract.disagreements }).toEqual({ seed, disagreements: {} });
  // Both checks over every operation: as many positive requests as asked, and as many negative
  // ones wherever the document forbids something of the operation's input.
  const operations = Object.entries(contract.perOperation);
  expect(operations.length).toBe(f.operations.total);
  for (const [key, e] of operations) {
    expect({ key, positive: e.positive.sent }).toEqual({ key, positive: PER_OPERATION });
    if (e.noMutation === undefined)
      expect({ key, negative: e.negative.sent }).toEqual({ key, negative: PER_OPERATION });
    else expect(["takes no input", "no mutation the document refuses"]).toContain(e.noMutation);
  }
  expect(f.tried).toBe(REQUESTS + contract.totals.positive.sent + contract.totals.negative.sent);
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
}, 180_000);
