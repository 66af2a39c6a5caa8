/**
 * The pacing of the sentence model's background upgrade (src/embedding/upgrade-pacing.ts): a batch
 * starts only once the service is quiet, except for the starvation guard's one batch per interval
 * under continuous load. Clock and load are the test's own.
 */
import { describe, expect, test } from "bun:test";
import { UpgradePacing } from "../../src/embedding/upgrade-pacing.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { ForegroundLoad } from "../../src/runtime/foreground-load.ts";

const URL = "http://localhost/memory/search";
const LIMITS = { quietMs: 50, starvedAfterMs: 1_000, starvedEveryMs: 200 };

function paced() {
  const clock = new ManualClock();
  const load = new ForegroundLoad(clock);
  return { clock, load, pacing: new UpgradePacing(clock, load, LIMITS) };
}

/** Asks, and counts a start when the answer is "now". */
function ask(pacing: UpgradePacing): number {
  const wait = pacing.wait();
  if (wait === 0) pacing.started();
  return wait;
}

describe("upgrade pacing", () => {
  test("a quiet service (no request yet) lets a batch start at once, every time", () => {
    const { pacing } = paced();
    expect(ask(pacing)).toBe(0);
    expect(ask(pacing)).toBe(0);
  });

  test("a request in flight holds the batch, re-asked after the quiet window", () => {
    const { clock, load, pacing } = paced();
    load.arrived(URL);
    expect(ask(pacing)).toBe(50);
    clock.advance(500);
    // Still in flight, however long: held.
    expect(ask(pacing)).toBe(50);
    load.answered();
    expect(ask(pacing)).toBe(50);
    clock.advance(30);
    // The answer was 30 ms ago: asked again when its 50 ms of quiet are over.
    expect(ask(pacing)).toBe(20);
    clock.advance(20);
    expect(ask(pacing)).toBe(0);
  });

  test("a recent answer counts as load until the quiet window has passed", () => {
    const { clock, load, pacing } = paced();
    load.arrived(URL);
    load.answered();
    clock.advance(49);
    expect(ask(pacing)).toBe(1);
    clock.advance(1);
    expect(ask(pacing)).toBe(0);
  });

  test("under continuous load the guard starts one batch per interval after its delay", () => {
    const { clock, load, pacing } = paced();
    load.arrived(URL);
    const starts: number[] = [];
    const began = clock.now();
    // A request always in flight; the scheduler asks again when told to, for 2 s.
    while (clock.now() - began < 2_000) {
      const wait = ask(pacing);
      if (wait === 0) {
        starts.push(clock.now() - began);
        continue;
      }
      clock.advance(wait);
    }
    expect(starts).toEqual([1_000, 1_200, 1_400, 1_600, 1_800]);
  });

  test("a quiet moment ends the continuous load: the guard's delay starts again with the next", () => {
    const { clock, load, pacing } = paced();
    load.arrived(URL);
    expect(ask(pacing)).toBe(50);
    clock.advance(1_000);
    expect(ask(pacing)).toBe(0);
    load.answered();
    clock.advance(50);
    expect(ask(pacing)).toBe(0);
    load.arrived(URL);
    // Busy again from now: no guard batch before another full delay.
    expect(ask(pacing)).toBe(50);
    clock.advance(900);
    expect(ask(pacing)).toBe(50);
    clock.advance(100);
    expect(ask(pacing)).toBe(0);
  });

  test("probes and scrapes are not load", () => {
    const { load, pacing } = paced();
    for (const path of ["/livez", "/readyz", "/metrics", "/tenants/01JX/healthz?verbose=1"])
      expect(load.arrived(`http://localhost${path}`)).toBe(false);
    expect(load.inFlight).toBe(0);
    expect(ask(pacing)).toBe(0);
    expect(load.arrived(URL)).toBe(true);
    expect(ask(pacing)).toBe(50);
  });

  test("the load never counts below zero requests in flight", () => {
    const { clock, load } = paced();
    load.answered();
    expect(load.inFlight).toBe(0);
    expect(load.lastActiveAt).toBe(clock.now());
  });
});
