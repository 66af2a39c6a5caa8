import { describe, expect, test } from "bun:test";
import { spreadBySource, spreadBySourceAndObject } from "../../../src/search/controls/source-spread.ts";

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

describe("spreadBySourceAndObject", () => {
  test("after the sources, each missing object of a source gets a place from the largest object", () => {
    const scores = [1, 0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5];
    const sources = ["pay", "pay", "pay", "crm", "crm", "pay", "crm", "desk"];
    const objects = ["cus", "cus", "cus", "deal1", "deal1", "inv", "deal2", "t1"];
    const picks = spreadBySourceAndObject(scores, sources, objects, 5, { minShare: 0.4 });
    // desk (0.5) comes in for its source; then inv and deal2 for their objects, from cus's places.
    expect(indices(picks)).toEqual([0, 3, 5, 6, 7]);
    expect(picks.filter((p) => p.lifted).map((p) => p.index)).toEqual([5, 6, 7]);
    // Every source the first pass placed keeps a place.
    expect(new Set(indices(picks).map((i) => sources[i]))).toEqual(new Set(["pay", "crm", "desk"]));
  });

  test("objectEligible says which may be lifted for their object", () => {
    const scores = [1, 0.9, 0.8, 0.7];
    const picks = spreadBySourceAndObject(scores, ["a", "a", "a", "a"], ["x", "x", "y", "z"], 2, {
      objectEligible: (i) => i !== 2,
    });
    expect(indices(picks)).toEqual([0, 3]);
  });

  test("no objects (all one): the source spread alone", () => {
    const scores = [1, 0.9, 0.8, 0.7];
    const groups = ["a", "a", "b", "b"];
    expect(spreadBySourceAndObject(scores, groups, ["", "", "", ""], 2)).toEqual(
      spreadBySource(scores, groups, 2),
    );
  });
});
