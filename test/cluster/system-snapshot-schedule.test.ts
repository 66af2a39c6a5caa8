/**
 * When the system snapshot is taken (src/cluster/system-snapshot-schedule.ts): by the node serving
 * partition 0 only, once `everyCommands` commands were applied since the newest snapshot (read
 * from the object store), then the stream is purged below the copy's sequence; after a failure,
 * not again before the retry delay on the injected clock. The copy, upload and purge themselves
 * are covered with real processes in system-state.test.ts; here they are recorded.
 */
import { describe, expect, test } from "bun:test";
import { SystemSnapshotSchedule } from "../../src/cluster/system-snapshot-schedule.ts";
import type { SystemSnapshots } from "../../src/cluster/system-snapshots.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import type { SystemStore } from "../../src/vault/system-store.ts";

function schedule(everyCommands: number) {
  const clock = new ManualClock();
  const state = { newest: 0, servesPartition0: true, failNext: false, applied: 0 };
  const purges: number[] = [];
  const captures: number[] = [];
  const snapshots = {
    latestSeq: async () => state.newest,
    capture: async () => {
      if (state.failNext) {
        state.failNext = false;
        throw new Error("upload refused by the test");
      }
      captures.push(state.applied);
      state.newest = state.applied;
      return state.applied;
    },
  } as unknown as SystemSnapshots;
  const jsm = { streams: { purge: async (_stream: string, opts: { seq: number }) => purges.push(opts.seq) } };
  const lines: string[] = [];
  const taker = new SystemSnapshotSchedule({
    store: {} as SystemStore,
    jsm: jsm as never,
    snapshots: async () => snapshots,
    takesSnapshots: () => state.servesPartition0,
    everyCommands,
    clock,
    log: (line) => lines.push(line),
  });
  /** Applies commands up to `seq`, each reported to the schedule, letting each attempt settle. */
  const applyUpTo = async (seq: number) => {
    while (state.applied < seq) {
      state.applied++;
      taker.applied(state.applied);
      await settle();
    }
  };
  return { clock, state, purges, captures, lines, taker, applyUpTo };
}

/** Lets an attempt (started, not awaited, by the trigger) run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("system snapshot triggers", () => {
  test("every N commands since the newest snapshot, each followed by a purge below it", async () => {
    const s = schedule(10);
    await s.applyUpTo(9);
    expect(s.captures).toEqual([]);
    await s.applyUpTo(25);
    expect(s.captures).toEqual([10, 20]);
    expect(s.purges).toEqual([10, 20]);
    expect(s.taker.taken).toBe(2);
  });

  test("counted from the newest snapshot in the object store, whoever took it", async () => {
    const s = schedule(10);
    s.state.newest = 17; // another node served partition 0 before
    await s.applyUpTo(26);
    expect(s.captures).toEqual([]);
    await s.applyUpTo(27);
    expect(s.captures).toEqual([27]);
  });

  test("only while this node serves partition 0", async () => {
    const s = schedule(10);
    s.state.servesPartition0 = false;
    await s.applyUpTo(30);
    expect(s.captures).toEqual([]);
    s.state.servesPartition0 = true;
    await s.applyUpTo(31);
    expect(s.captures).toEqual([31]);
  });

  test("after a failure, not again before the retry delay on the injected clock; nothing purged", async () => {
    const s = schedule(10);
    s.state.failNext = true;
    await s.applyUpTo(12);
    expect(s.captures).toEqual([]);
    expect(s.purges).toEqual([]);
    expect(s.lines.some((line) => line.includes("system snapshot failed"))).toBe(true);
    s.clock.advance(9_999);
    await s.applyUpTo(13);
    expect(s.captures).toEqual([]);
    s.clock.advance(1);
    await s.applyUpTo(14);
    expect(s.captures).toEqual([14]);
    expect(s.purges).toEqual([14]);
  });
});
