import { describe, expect, test } from "bun:test";
import { spreadBySource } from "../../src/embedding/source-spread.ts";

const indices = (picks: { index: number }[]) => picks.map((p) => p.index);

describe("spreadBySource", () => {
  test("each missing source with a candidate at or above the floor gets one place", () => {
    const scores = [1, 0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.4];
    const groups = ["a", "a", "a", "a", "b", "c", "c", "d"];
    const picks = spreadBySource(scores, groups, 4, { minShare: 0.5 });
    // b (0.6) and c (0.55) replace a's weakest two; d (0.4) is below half of 1.
    expect(indices(picks)).toEqual([0, 1, 4, 5]);
    expect(picks.map((p) => p.lifted)).toEqual([false, false, true, true]);
  });

  test("a candidate that is not eligible (shares no anchor) is passed over", () => {
    const picks = spreadBySource([1, 0.9, 0.8, 0.7], ["a", "a", "b", "b"], 2, { eligible: (i) => i !== 2 });
    expect(indices(picks)).toEqual([0, 3]);
  });

  test("a source's only place is never taken, and the first result never moves", () => {
    const picks = spreadBySource([1, 0.9, 0.8, 0.7], ["a", "b", "c", "d"], 2);
    expect(indices(picks)).toEqual([0, 1]);
  });

  test("one source, or every source already present: the best `limit` in order", () => {
    expect(indices(spreadBySource([1, 0.9, 0.8], ["a", "a", "a"], 2))).toEqual([0, 1]);
    expect(indices(spreadBySource([1, 0.9, 0.8, 0.7], ["a", "b", "a", "b"], 3))).toEqual([0, 1, 2]);
    expect(spreadBySource([], [], 5)).toEqual([]);
  });

  test("the displaced result is the weakest of the source holding the most places", () => {
    const scores = [1, 0.95, 0.9, 0.85, 0.8, 0.7];
    const groups = ["a", "b", "b", "a", "b", "c"];
    expect(indices(spreadBySource(scores, groups, 5))).toEqual([0, 1, 2, 3, 5]);
  });
});
