/**
 * When the owner snapshots a partition (src/cluster/periodic-snapshots.ts): after N write records
 * or T since its last snapshot on the injected clock, only while it serves the partition and only
 * if anything was written; on demand (an erasure, a deletion: one at a time, requests made while
 * one runs sharing the next), and at the next tick after a takeover that owes one. The snapshot itself (replay, upload, purge) is covered with real
 * processes in snapshots.test.ts; here its first step is refused, so each attempt is only counted.
 */
import { describe, expect, test } from "bun:test";
import { Fenced } from "../../src/cluster/fence.ts";
import type { ClusterNode } from "../../src/cluster/node.ts";
import { PeriodicSnapshots } from "../../src/cluster/periodic-snapshots.ts";
import type { Snapshots } from "../../src/cluster/snapshots.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

function schedule(policy: { everyRecords: number; everyMs: number }) {
  const clock = new ManualClock();
  const attempts: number[] = [];
  const lines: string[] = [];
  const periodic = new PeriodicSnapshots({
    node: {} as ClusterNode,
    jsm: {} as never,
    snapshots: () => {
      attempts.push(clock.now());
      return Promise.reject<Snapshots>(new Error("refused by the test"));
    },
    restore: { js: {} as never, passivateTenant: async () => {} },
    clock,
    policy,
    log: (line) => lines.push(line),
  });
  return { clock, attempts, lines, periodic };
}

/** Lets the failed attempt settle (it is started, not awaited, by the trigger). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("periodic snapshot triggers", () => {
  test("after N write records of a served partition", async () => {
    const { attempts, lines, periodic } = schedule({ everyRecords: 3, everyMs: 60_000 });
    periodic.appended(7, 10); // not served here: not counted
    periodic.serving(7, true);
    periodic.appended(7, 11);
    periodic.appended(7, 12);
    expect(attempts).toHaveLength(0);
    periodic.appended(7, 13);
    await settle();
    expect(attempts).toHaveLength(1);
    expect(lines).toEqual(["[cluster] partition 7: periodic snapshot failed: Error: refused by the test"]);
  });

  test("after T on the injected clock when anything was written, and not again before the retry delay", async () => {
    const { clock, attempts, periodic } = schedule({ everyRecords: 1000, everyMs: 60_000 });
    periodic.start();
    periodic.serving(3, true);
    periodic.serving(4, true);
    periodic.appended(3, 5);
    clock.advance(59_000);
    await settle();
    expect(attempts).toHaveLength(0);
    clock.advance(1_000);
    await settle();
    // Partition 3 only: nothing was written to partition 4.
    expect(attempts).toEqual([clock.now()]);
    // The failed attempt is retried 10 s later, not on every tick.
    clock.advance(9_000);
    await settle();
    expect(attempts).toHaveLength(1);
    clock.advance(1_000);
    await settle();
    expect(attempts).toHaveLength(2);
    // A partition no longer served is not snapshotted.
    periodic.serving(3, false);
    clock.advance(120_000);
    await settle();
    expect(attempts).toHaveLength(2);
    periodic.stop();
  });
});

describe("compactions on demand (an erasure, a deletion, a takeover that owes one)", () => {
  /** Each attempt's first step waits for the test to refuse it: the attempt runs until then. */
  function onDemand() {
    const clock = new ManualClock();
    const attempts: Array<PromiseWithResolvers<Snapshots>> = [];
    const periodic = new PeriodicSnapshots({
      node: {} as ClusterNode,
      jsm: {} as never,
      snapshots: () => {
        const attempt = Promise.withResolvers<Snapshots>();
        attempts.push(attempt);
        return attempt.promise;
      },
      restore: { js: {} as never, passivateTenant: async () => {} },
      clock,
      policy: { everyRecords: 1000, everyMs: 600_000 },
      log: () => {},
    });
    const refuse = (i: number) => attempts[i]!.reject(new Error(`attempt ${i} refused`));
    return { clock, attempts, periodic, refuse };
  }

  test("a request while one runs waits for the next one, which every request made meanwhile shares", async () => {
    const { attempts, periodic, refuse } = onDemand();
    periodic.serving(3, true);
    const first = periodic.compactNow(3);
    const second = periodic.compactNow(3);
    const third = periodic.compactNow(3);
    expect(second).toBe(third);
    await settle();
    expect(attempts).toHaveLength(1);
    expect(periodic.owes(3)).toBe(true);
    refuse(0);
    await expect(first).rejects.toThrow("attempt 0 refused");
    await settle();
    // The next one starts after the first ended, for both waiting requests.
    expect(attempts).toHaveLength(2);
    refuse(1);
    await expect(second).rejects.toThrow("attempt 1 refused");
  });

  test("a failed one stays owed and is retried after the delay; a takeover's is taken at the next tick", async () => {
    const { clock, attempts, periodic, refuse } = onDemand();
    periodic.start();
    periodic.serving(3, true);
    const asked = periodic.compactNow(3);
    refuse(0);
    await expect(asked).rejects.toThrow();
    expect(periodic.owes(3)).toBe(true);
    clock.advance(9_000);
    await settle();
    expect(attempts).toHaveLength(1);
    clock.advance(1_000);
    await settle();
    expect(attempts).toHaveLength(2);
    // Served anew after a takeover that found a compaction owed: taken at the next tick.
    periodic.serving(5, true, true);
    clock.advance(1_000);
    await settle();
    expect(attempts).toHaveLength(3);
    periodic.stop();
  });

  test("a partition not served here is refused with Fenced (503)", async () => {
    const { attempts, periodic } = onDemand();
    await expect(periodic.compactNow(9)).rejects.toBeInstanceOf(Fenced);
    periodic.serving(9, true);
    periodic.serving(9, false);
    await expect(periodic.compactNow(9)).rejects.toBeInstanceOf(Fenced);
    expect(attempts).toHaveLength(0);
    expect(periodic.owes(9)).toBe(false);
  });
});
