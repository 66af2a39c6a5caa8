import { DAY_MS, type Span } from "./calendar.ts";

/**
 * How an entry's valid time meets a query's window, 0–1. An entry valid at some moment of the
 * window fits it (1): it became valid in it, or was valid from before and still was then (a
 * stage, a plan: "what stage was the deal in on 3 March?" asks what was true then). One that
 * became valid after the window fits less and less: what is written about a period is often
 * written just after it ("last week I…", a late webhook), so the fit halves every `grace` past
 * the window's end (half the window, at least a day, at most two weeks). An entry whose validity
 * ended before the window does not fit (0).
 */
const MAX_GRACE = 14 * DAY_MS;

export function graceOf(window: Span): number {
  const length = window.to - window.from;
  return Number.isFinite(length) ? Math.min(MAX_GRACE, Math.max(DAY_MS, length / 2)) : MAX_GRACE;
}

export function windowFit(validFrom: number, validTo: number | null, window: Span): number {
  if (validFrom >= window.to) return 0.5 ** ((validFrom - window.to) / graceOf(window));
  return validTo === null || validTo > window.from ? 1 : 0;
}

/** Entries outside the window keep `1 − weight` of their score; inside, all of it. */
export function timeFactor(fit: number, weight: number): number {
  return 1 - weight + weight * Math.min(1, Math.max(0, fit));
}

/** How far past the window an entry is still worth proposing as a candidate: three graces. */
export function proposalSpan(window: Span): Span {
  return { from: window.from, to: window.to + 3 * graceOf(window) };
}
