import { describe, expect, test } from "bun:test";
import { MemoryWatch } from "../../bench/memory-watch.ts";

describe("the bench's memory watch", () => {
  test("a stage's reading is kept with its stage and entries", () => {
    const watch = new MemoryWatch("self", { ceilingMb: 1_000_000, minAvailableMb: 0, everyMs: 60_000 });
    try {
      const sample = watch.sample("fill", 10_000);
      expect(sample.stage).toBe("fill");
      expect(sample.entries).toBe(10_000);
      expect(sample.rss_mb).toBeGreaterThan(0);
      expect(watch.samples).toEqual([sample]);
      expect(watch.peakMb).toBeGreaterThanOrEqual(sample.rss_mb - 1);
      expect(watch.exceeded).toBeUndefined();
    } finally {
      watch.stop();
    }
  });

  test("past the ceiling it stops the run once, naming the stage", () => {
    const reasons: string[] = [];
    const watch = new MemoryWatch("self", {
      ceilingMb: 1,
      minAvailableMb: 0,
      everyMs: 60_000,
      onLimit: (why) => reasons.push(why),
    });
    try {
      watch.sample("after fill");
      watch.sample("after first search");
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toStartWith("after fill: RSS ");
      expect(watch.exceeded).toBe(reasons[0]);
    } finally {
      watch.stop();
    }
  });

  test("with too little left on the machine it stops the run too", () => {
    const reasons: string[] = [];
    const watch = new MemoryWatch("self", {
      ceilingMb: 1_000_000,
      minAvailableMb: Number.POSITIVE_INFINITY,
      everyMs: 60_000,
      onLimit: (why) => reasons.push(why),
    });
    try {
      watch.sample("restart 1");
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toContain("left on the machine");
    } finally {
      watch.stop();
    }
  });
});
