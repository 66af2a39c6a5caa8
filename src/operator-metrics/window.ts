import { ValidationFailed } from "../errors/domain-errors.ts";
import { timeParam } from "../memory/time-param.ts";
import type { Window } from "../models/revenue.ts";

/** The default window: the last 30 days. */
const DEFAULT_WINDOW_MS = 30 * 24 * 3600 * 1000;

const FIRST_RFC3339_MS = Date.parse("0000-01-01T00:00:00.000Z");

/**
 * `from`/`to` of a metric query: RFC 3339, `from` before `to`, the window [from, to). By default it
 * ends just after now (so what was written this millisecond counts) and starts 30 days before its end.
 */
export function metricWindow(query: { from?: string; to?: string }, now: number): Window {
  const to = query.to === undefined ? now + 1 : timeParam(query.to, "to", now);
  const from = query.from === undefined ? to - DEFAULT_WINDOW_MS : timeParam(query.from, "from", now);
  if (from >= to)
    throw new ValidationFailed("from must be before to", [{ path: "/from", message: "before to" }]);
  // The default `from` is 30 days before `to`: a `to` in January of year 0000 would put it before
  // the first instant an RFC 3339 timestamp can name, and the answer could not say it.
  if (from < FIRST_RFC3339_MS) {
    const path = query.from === undefined ? "/to" : "/from";
    throw new ValidationFailed("the window starts before year 0000", [{ path, message: "from 0000-01-01" }]);
  }
  return { from, to };
}
