/**
 * Calendar spans in UTC, as the time expressions of a query name them (time-expressions.ts). Every
 * span is half-open, [from, to) in epoch ms: a day, an ISO week (Monday to Sunday), a month, a year.
 * UTC throughout, like every time of the runtime, so a reading does not depend on the machine.
 */

export const DAY_MS = 86_400_000;

export interface Span {
  from: number;
  to: number;
}

export const MONTH_NAMES = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
] as const;

export const WEEKDAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** A month's number (0–11) from its name or a common abbreviation ("sept", "dec."); -1 otherwise. */
export function monthOf(word: string): number {
  const w = word.replace(/\.$/, "");
  if (w.length < 3) return -1;
  if (w === "sept") return 8;
  return MONTH_NAMES.findIndex((name) => name === w || (w.length === 3 && name.startsWith(w)));
}

export const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

export const daySpan = (year: number, month: number, day: number): Span => {
  const from = Date.UTC(year, month, day);
  return { from, to: from + DAY_MS };
};

export const monthSpan = (year: number, month: number): Span => ({
  from: Date.UTC(year, month, 1),
  to: Date.UTC(year, month + 1, 1),
});

export const yearSpan = (year: number): Span => ({
  from: Date.UTC(year, 0, 1),
  to: Date.UTC(year + 1, 0, 1),
});

/** The ISO week (Monday 00:00 to the next Monday) holding `ms`. */
export function weekSpan(ms: number): Span {
  const day = dayStart(ms);
  const sinceMonday = (new Date(day).getUTCDay() + 6) % 7;
  const from = day - sinceMonday * DAY_MS;
  return { from, to: from + 7 * DAY_MS };
}

/** Whether a day exists (29 February of a leap year does, 31 April does not). */
export function isRealDay(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day;
}

/** The latest `month` that has begun by `ref`: "in May" asked in May is this May, in April last year's. */
export function latestMonth(month: number, ref: number, strictlyBefore = false): Span {
  const now = new Date(ref);
  const year = now.getUTCFullYear();
  const current = now.getUTCMonth();
  const late = strictlyBefore ? month >= current : month > current;
  return monthSpan(late ? year - 1 : year, month);
}

/** The latest date with this day and month on or before `ref`'s day (a 29 February: the last leap year's). */
export function latestDay(month: number, day: number, ref: number): Span | undefined {
  const today = dayStart(ref);
  const year = new Date(ref).getUTCFullYear();
  for (let y = year; y > year - 8; y--) {
    if (isRealDay(y, month, day) && Date.UTC(y, month, day) <= today) return daySpan(y, month, day);
  }
  return undefined;
}

/** Calendar arithmetic: `ms` moved by whole months, the day clamped to the target month's last. */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes());
}
