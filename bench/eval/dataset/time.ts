/**
 * Dates as the conversations and their answers say them. All arithmetic is in UTC, so the set does
 * not depend on the machine's time zone.
 */
import type { Rng } from "./prng.ts";

const DAY_MS = 86_400_000;
export const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

export const addDays = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);

/** Midnight UTC of the date's day. */
export const dayOf = (date: Date) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));

/** "7 May 2023" */
export const formatDay = (date: Date) =>
  `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;

/** "May 2023" */
export const formatMonth = (date: Date) => `${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;

/** LoCoMo's session stamp: "1:56 pm on 8 May, 2023". */
export function formatSessionStamp(date: Date): string {
  const hours = date.getUTCHours();
  const minutes = String(date.getUTCMinutes()).padStart(2, "0");
  const hour12 = hours % 12 === 0 ? 12 : hours % 12;
  const half = hours < 12 ? "am" : "pm";
  return `${hour12}:${minutes} ${half} on ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}, ${date.getUTCFullYear()}`;
}

/** Whole months from `a` to `b` (calendar months, ignoring days). */
export const monthsBetween = (a: Date, b: Date) =>
  (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();

/** Whole weeks from `a` to `b`. */
export const weeksBetween = (a: Date, b: Date) => Math.round((b.getTime() - a.getTime()) / (7 * DAY_MS));

/** A past moment as a speaker says it, when it was, and how an answer states it. */
export interface Relative {
  phrase: string;
  date: Date;
  answer: string;
}

type RelativeKind = "recent" | "period";

/**
 * A moment shortly before `spoken`: "recent" ones are days back (yesterday, on Tuesday, last
 * weekend), "period" ones weeks back (last week, a couple of weeks ago, last month).
 */
export function relativePast(rng: Rng, spoken: Date, kind: RelativeKind = "recent"): Relative {
  const today = dayOf(spoken);
  const day = formatDay(today);
  const choice =
    kind === "recent"
      ? rng.pick(["yesterday", "two days ago", "weekday", "weekend", "this morning"] as const)
      : rng.pick(["last week", "fortnight", "last month"] as const);
  switch (choice) {
    case "yesterday":
      return { phrase: "yesterday", date: addDays(today, -1), answer: formatDay(addDays(today, -1)) };
    case "two days ago":
      return { phrase: "two days ago", date: addDays(today, -2), answer: formatDay(addDays(today, -2)) };
    case "this morning":
      return { phrase: "this morning", date: today, answer: day };
    case "weekday": {
      const back = rng.int(2, 6);
      const date = addDays(today, -back);
      return { phrase: `on ${WEEKDAYS[date.getUTCDay()]}`, date, answer: formatDay(date) };
    }
    case "weekend": {
      // Saturday → 0 days back, Sunday → 1, … Friday → 6; said on a weekend it means the one before.
      let back = (today.getUTCDay() + 1) % 7;
      if (back < 2) back += 7;
      return { phrase: "last weekend", date: addDays(today, -back), answer: `the weekend before ${day}` };
    }
    case "last week":
      return { phrase: "last week", date: addDays(today, -7), answer: `the week before ${day}` };
    case "fortnight":
      return {
        phrase: "a couple of weeks ago",
        date: addDays(today, -14),
        answer: `two weeks before ${day}`,
      };
    case "last month": {
      const date = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 15));
      return { phrase: "last month", date, answer: formatMonth(date) };
    }
  }
}
