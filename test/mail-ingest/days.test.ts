import { describe, expect, test } from "bun:test";
import { dayOf, isDay, isTimeZone, lastDays, searchWindow, timeOf } from "../../src/mail-ingest/days.ts";

describe("days", () => {
  const late = Date.UTC(2026, 10, 20, 23, 30); // 2026-11-20 23:30 UTC

  test("an instant's day depends on the time zone", () => {
    expect(dayOf(late, "UTC")).toBe("2026-11-20");
    expect(dayOf(late, "Europe/Paris")).toBe("2026-11-21");
    expect(dayOf(late, "America/New_York")).toBe("2026-11-20");
  });

  test("timeOf gives the local time with its offset", () => {
    expect(timeOf(late, "UTC")).toBe("2026-11-20 23:30:00 +00:00");
    expect(timeOf(late, "Europe/Paris")).toBe("2026-11-21 00:30:00 +01:00");
    expect(timeOf(Date.UTC(2026, 6, 1, 12), "Asia/Kolkata")).toBe("2026-07-01 17:30:00 +05:30");
  });

  test("lastDays counts back across months and years, oldest first", () => {
    expect(lastDays("2026-03-01", 3)).toEqual(["2026-02-27", "2026-02-28", "2026-03-01"]);
    expect(lastDays("2027-01-01", 2)).toEqual(["2026-12-31", "2027-01-01"]);
    expect(lastDays("2026-11-21", 1)).toEqual(["2026-11-21"]);
  });

  test("isDay accepts real dates only", () => {
    expect(isDay("2026-02-28")).toBe(true);
    expect(isDay("2026-02-30")).toBe(false);
    expect(isDay("2026-2-3")).toBe(false);
    expect(isDay("yesterday")).toBe(false);
  });

  test("isTimeZone knows IANA names", () => {
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
  });

  test("the search window is one UTC day wider than the days on each side", () => {
    const { after, before } = searchWindow(["2026-11-20", "2026-11-21"]);
    expect(new Date(after * 1000).toISOString()).toBe("2026-11-19T00:00:00.000Z");
    expect(new Date(before * 1000).toISOString()).toBe("2026-11-23T00:00:00.000Z");
  });
});
