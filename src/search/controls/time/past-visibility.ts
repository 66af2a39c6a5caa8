import { type TimeFilter, validAt, viewAsOf } from "../../../memory/temporal.ts";
import type { Entry } from "../../../models/entry.ts";
import type { StoredEntry } from "../../../models/stored-entry.ts";
import type { Span } from "./calendar.ts";
import type { TimeReading } from "./time-expressions.ts";

/**
 * What a question about the past may see besides what is valid at the search's `valid_at`: the
 * entries valid at some moment of its window up to `valid_at` ("what was the plan in 2022?"), or,
 * without a window, of any time before it ("where did Ana use to live?", "when did…"). So a
 * superseded or closed entry is found, and may outrank its replacement, only when the query asks
 * for the past; a question about now ("current", "still") never widens.
 */
export function pastSpan(reading: TimeReading, validAtMs: number): Span | undefined {
  if (!reading.past || reading.current) return undefined;
  const from = reading.window?.from ?? Number.NEGATIVE_INFINITY;
  const to = Math.min(reading.window?.to ?? Number.POSITIVE_INFINITY, validAtMs);
  return from < to ? { from, to } : undefined;
}

/** `visible` (src/memory/temporal.ts), widened to the span: known at `asOf`, valid then or during it. */
export function visibleThen(stored: StoredEntry, filter: TimeFilter, during?: Span): Entry | undefined {
  const view = viewAsOf(stored, filter.asOf);
  if (!view || validAt(view, filter.validAt)) return view;
  if (!during) return undefined;
  const end = view.valid_to === null ? Number.POSITIVE_INFINITY : Date.parse(view.valid_to);
  return Date.parse(view.valid_from) < during.to && end > during.from ? view : undefined;
}
