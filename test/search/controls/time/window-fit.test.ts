import { describe, expect, test } from "bun:test";
import { DAY_MS } from "../../../../src/search/controls/time/calendar.ts";
import {
  graceOf,
  proposalSpan,
  timeFactor,
  windowFit,
} from "../../../../src/search/controls/time/window-fit.ts";

const may = { from: Date.parse("2022-05-01"), to: Date.parse("2022-06-01") };

describe("window fit", () => {
  test("valid at some moment of the window: 1, whether it began in it or before", () => {
    expect(windowFit(Date.parse("2022-05-10"), null, may)).toBe(1);
    expect(windowFit(Date.parse("2021-01-01"), null, may)).toBe(1);
    expect(windowFit(Date.parse("2021-01-01"), Date.parse("2022-05-02"), may)).toBe(1);
  });

  test("ended before the window: 0", () => {
    expect(windowFit(Date.parse("2021-01-01"), Date.parse("2022-05-01"), may)).toBe(0);
  });

  test("after the window: halves every grace (half the window, at most two weeks)", () => {
    expect(graceOf(may)).toBe(14 * DAY_MS);
    expect(windowFit(may.to, null, may)).toBe(1);
    expect(windowFit(may.to + 14 * DAY_MS, null, may)).toBeCloseTo(0.5, 10);
    expect(windowFit(may.to + 28 * DAY_MS, null, may)).toBeCloseTo(0.25, 10);
    const day = { from: 0, to: DAY_MS };
    expect(graceOf(day)).toBe(DAY_MS);
  });

  test("open windows have the longest grace; the proposal span is three graces past the end", () => {
    expect(graceOf({ from: Number.NEGATIVE_INFINITY, to: 0 })).toBe(14 * DAY_MS);
    expect(proposalSpan(may)).toEqual({ from: may.from, to: may.to + 42 * DAY_MS });
  });

  test("the factor keeps 1 − weight outside and everything inside", () => {
    expect(timeFactor(1, 0.8)).toBe(1);
    expect(timeFactor(0, 0.8)).toBeCloseTo(0.2, 10);
    expect(timeFactor(2, 0.8)).toBe(1);
  });
});
