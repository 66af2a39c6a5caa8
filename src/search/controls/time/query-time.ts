import type { ResultExplain } from "../../../models/search-controls.ts";
import { readTime, type TimeReading } from "./time-expressions.ts";

/** A query read with no time in it: every word is a word. */
export const NO_TIME: TimeReading = { current: false, past: false, rest: "" };

/**
 * The search's reading of its query's time: against its `valid_at` (now by default), unless the
 * caller turned it off (`time_expressions: false`: the words are only words).
 */
export function queryTime(text: string | undefined, validAt: number, enabled = true): TimeReading {
  return text && enabled ? readTime(text, validAt) : { ...NO_TIME, rest: text ?? "" };
}

const isoOrNull = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** The window as `explain` shows it: ISO instants, null for an open side. */
export function windowExplain(reading: TimeReading): ResultExplain["time_window"] {
  const w = reading.window;
  return w && { from: isoOrNull(w.from), to: isoOrNull(w.to), expression: w.expression };
}
