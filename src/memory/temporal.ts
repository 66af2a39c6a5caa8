import type { Entry } from "../models/entry.ts";
import type { StoredEntry } from "../models/stored-entry.ts";

export type { StoredEntry };

/**
 * Bi-temporal views (CONTRACT §5, the XTDB / Graphiti model). `valid_*` is when a thing is true in the
 * world; `recorded_at`/`expired_at` is when the runtime knew it. A stored entry keeps the `valid_to` it
 * had before a supersession, so a view "as of" an earlier time shows what was known then.
 */
export interface TimeFilter {
  /** Transaction time, epoch ms. */
  asOf: number;
  /** Valid time, epoch ms. */
  validAt: number;
}

/** The entry as known at `asOf`, or undefined when the runtime did not know it (or had retracted it). */
export function viewAsOf(stored: StoredEntry, asOf: number): Entry | undefined {
  const e = stored.entry;
  if (Date.parse(e.recorded_at) > asOf) return undefined;
  if (e.expired_at !== null && Date.parse(e.expired_at) <= asOf) return undefined;
  const later = { ...(e.expired_at !== null ? { expired_at: null } : {}) };
  if (e.invalidated_at !== null && Date.parse(e.invalidated_at) > asOf) {
    return { ...e, ...later, valid_to: stored.prior_valid_to ?? null, invalidated_at: null };
  }
  return e.expired_at !== null ? { ...e, ...later } : e;
}

export function validAt(entry: Entry, at: number): boolean {
  if (Date.parse(entry.valid_from) > at) return false;
  return entry.valid_to === null || at < Date.parse(entry.valid_to);
}

/** The entry as seen by a query with both time coordinates, or undefined when it is filtered out. */
export function visible(stored: StoredEntry, filter: TimeFilter): Entry | undefined {
  const view = viewAsOf(stored, filter.asOf);
  return view && validAt(view, filter.validAt) ? view : undefined;
}
