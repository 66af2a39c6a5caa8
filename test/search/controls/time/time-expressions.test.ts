import { describe, expect, test } from "bun:test";
import { readTime } from "../../../../src/search/controls/time/time-expressions.ts";

/** The window read from `query` at `ref`, as ISO days (or instants when not midnight), null for an open side. */
function windowOf(query: string, ref: string) {
  const w = readTime(query, Date.parse(ref)).window;
  if (!w) return undefined;
  const show = (ms: number) => {
    if (!Number.isFinite(ms)) return null;
    const iso = new Date(ms).toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  };
  return { from: show(w.from), to: show(w.to), expression: w.expression };
}

const MAY_15 = "2024-05-15T12:00:00.000Z"; // a Wednesday, in a leap year

describe("absolute dates", () => {
  test.each([
    ["What did Zane do in May 2022?", "2022-05-01", "2022-06-01", "in May 2022"],
    ["in March 2022", "2022-03-01", "2022-04-01", "in March 2022"],
    ["what happened in 2023", "2023-01-01", "2024-01-01", "in 2023"],
    ["notes from 2023-05-07", "2023-05-07", "2023-05-08", "from 2023-05-07"],
    ["the 2023-05 invoices", "2023-05-01", "2023-06-01", "2023-05"],
    ["on 7 May 2023", "2023-05-07", "2023-05-08", "on 7 May 2023"],
    ["on May 7th, 2023", "2023-05-07", "2023-05-08", "on May 7th, 2023"],
    ["late March 2022", "2022-03-21", "2022-04-01", "late March 2022"],
    ["in early 2022", "2022-01-01", "2022-05-01", "in early 2022"],
    ["between March and May 2022", "2022-03-01", "2022-06-01", "between March and May 2022"],
    ["Dec 2021 renewals", "2021-12-01", "2022-01-01", "Dec 2021"],
  ])("%p", (query, from, to, expression) => {
    expect(windowOf(query, MAY_15)).toEqual({ from, to, expression });
  });

  test("open windows: since, after, before, until", () => {
    expect(windowOf("since June 2022", MAY_15)).toEqual({
      from: "2022-06-01",
      to: null,
      expression: "since June 2022",
    });
    expect(windowOf("after 2021", MAY_15)).toEqual({
      from: "2022-01-01",
      to: null,
      expression: "after 2021",
    });
    expect(windowOf("before 2021", MAY_15)).toEqual({
      from: null,
      to: "2021-01-01",
      expression: "before 2021",
    });
    expect(windowOf("until March 2022", MAY_15)).toEqual({
      from: null,
      to: "2022-04-01",
      expression: "until March 2022",
    });
  });

  test("a shift from an absolute date lands on its day", () => {
    expect(windowOf("two weeks before 7 May 2023", MAY_15)).toEqual({
      from: "2023-04-23",
      to: "2023-04-24",
      expression: "two weeks before 7 May 2023",
    });
  });
});

describe("months without a year: the latest one begun by the reference", () => {
  test("'in May' asked in May is this May; 'last May' asked in May is the year before", () => {
    expect(windowOf("in May", MAY_15)).toMatchObject({ from: "2024-05-01", to: "2024-06-01" });
    expect(windowOf("last May", MAY_15)).toMatchObject({ from: "2023-05-01", to: "2023-06-01" });
    expect(windowOf("last April", MAY_15)).toMatchObject({ from: "2024-04-01", to: "2024-05-01" });
    expect(windowOf("in June", MAY_15)).toMatchObject({ from: "2023-06-01", to: "2023-07-01" });
    expect(windowOf("since June", MAY_15)).toMatchObject({ from: "2023-06-01", to: null });
  });

  test("month names that are verbs or names need a word before them", () => {
    expect(windowOf("May I ask about the invoice?", MAY_15)).toBeUndefined();
    expect(windowOf("march 5 miles", MAY_15)).toBeUndefined();
    expect(windowOf("what did August say", MAY_15)).toBeUndefined();
    expect(windowOf("on 5 May", MAY_15)).toMatchObject({ from: "2024-05-05", to: "2024-05-06" });
    expect(windowOf("June 5", MAY_15)).toMatchObject({ from: "2023-06-05", to: "2023-06-06" });
  });
});

describe("relative to the reference", () => {
  test.each([
    ["what did I do yesterday", "2024-05-14", "2024-05-15"],
    ["today", "2024-05-15", "2024-05-16"],
    ["the day before yesterday", "2024-05-13", "2024-05-14"],
    ["last week", "2024-05-06", "2024-05-13"],
    ["two weeks ago", "2024-04-29", "2024-05-06"],
    ["a couple of weeks ago", "2024-04-29", "2024-05-06"],
    ["last month", "2024-04-01", "2024-05-01"],
    ["3 months ago", "2024-02-01", "2024-03-01"],
    ["last year", "2023-01-01", "2024-01-01"],
    ["last weekend", "2024-05-11", "2024-05-13"],
    ["on Monday", "2024-05-13", "2024-05-14"],
    ["last Wednesday", "2024-05-08", "2024-05-09"],
    ["on Wednesday", "2024-05-15", "2024-05-16"],
  ])("%p", (query, from, to) => {
    expect(windowOf(query, MAY_15)).toMatchObject({ from, to });
  });

  test("rolling spans end at the reference", () => {
    expect(windowOf("this year", MAY_15)).toMatchObject({ from: "2024-01-01", to: MAY_15 });
    expect(windowOf("recently", MAY_15)).toMatchObject({ from: "2024-04-15T12:00:00.000Z", to: MAY_15 });
    expect(windowOf("in the past 3 days", MAY_15)).toMatchObject({
      from: "2024-05-12T12:00:00.000Z",
      to: MAY_15,
    });
    expect(windowOf("the past week", MAY_15)).toMatchObject({ from: "2024-05-08T12:00:00.000Z", to: MAY_15 });
  });
});

describe("calendar edges", () => {
  test("month boundaries: 'last month' on 31 March is February, on 1 January last December", () => {
    expect(windowOf("last month", "2024-03-31T23:00:00Z")).toMatchObject({
      from: "2024-02-01",
      to: "2024-03-01",
    });
    expect(windowOf("last month", "2024-01-01T00:30:00Z")).toMatchObject({
      from: "2023-12-01",
      to: "2024-01-01",
    });
    expect(windowOf("yesterday", "2024-03-01T08:00:00Z")).toMatchObject({
      from: "2024-02-29",
      to: "2024-03-01",
    });
  });

  test("leap years: 29 February is a date only in a leap year", () => {
    expect(windowOf("on 29 February 2024", MAY_15)).toMatchObject({ from: "2024-02-29", to: "2024-03-01" });
    expect(windowOf("on 29 February 2023", MAY_15)).toBeUndefined();
    expect(windowOf("Feb 29, 2023", MAY_15)).toBeUndefined();
    // Without a year: the last 29 February by the reference.
    expect(windowOf("on 29 February", "2027-01-10T00:00:00Z")).toMatchObject({ from: "2024-02-29" });
  });

  test("impossible dates are words", () => {
    expect(windowOf("on 31 April 2023", MAY_15)).toBeUndefined();
    expect(windowOf("2023-13-01", MAY_15)).toBeUndefined();
  });
});

describe("intent and the words left", () => {
  test("current words ask about now; past words and windows before the reference about the past", () => {
    expect(readTime("what is the current plan", Date.parse(MAY_15))).toMatchObject({
      current: true,
      past: false,
    });
    expect(readTime("is Acme still on the Pro plan?", Date.parse(MAY_15))).toMatchObject({ current: true });
    expect(readTime("where did Ana used to live", Date.parse(MAY_15))).toMatchObject({
      current: false,
      past: true,
    });
    expect(readTime("When did Soren move to Atlanta?", Date.parse(MAY_15))).toMatchObject({ past: true });
    expect(readTime("Which plan did Acme use to be on?", Date.parse(MAY_15))).toMatchObject({ past: true });
    expect(readTime("what do we use to deploy", Date.parse(MAY_15))).toMatchObject({ past: false });
    expect(readTime("what was the plan in 2022", Date.parse(MAY_15))).toMatchObject({ past: true });
    expect(readTime("what changed this year", Date.parse(MAY_15))).toMatchObject({ past: false });
  });

  test("the window's words are left out of `rest`; a query without an expression is unchanged", () => {
    expect(readTime("What did Zane do in May 2022?", Date.parse(MAY_15)).rest).toBe("What did Zane do?");
    const plain = readTime("billing database migration", Date.parse(MAY_15));
    expect(plain).toEqual({ current: false, past: false, rest: "billing database migration" });
  });

  test("an unparseable expression is simply words", () => {
    for (const q of [
      "the week of the big launch",
      "two weeks before the launch",
      "in the year of the dragon",
    ])
      expect(readTime(q, Date.parse(MAY_15)).window).toBeUndefined();
  });

  test("deterministic: the same query and reference read the same", () => {
    const a = readTime("two weeks ago in Lisbon", Date.parse(MAY_15));
    expect(readTime("two weeks ago in Lisbon", Date.parse(MAY_15))).toEqual(a);
  });
});
