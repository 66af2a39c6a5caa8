/**
 * Whether an entry is current now, and if not why: what the tenant page's "Recent entries" hides
 * unless asked to show all (the memory API's lists leave out the same entries).
 */
import type { Entry } from "../models/entry.ts";

export const ENTRY_STATES = ["current", "superseded", "retracted", "ended", "not yet valid"] as const;
export type EntryState = (typeof ENTRY_STATES)[number];

const at = (iso: string | null) => (iso === null ? undefined : Date.parse(iso));

/** `retracted` covers a correction too: both set `expired_at` (CONTRACT §5). */
export function entryState(e: Entry, now: number): EntryState {
  const expired = at(e.expired_at);
  if (expired !== undefined && expired <= now) return "retracted";
  const invalidated = at(e.invalidated_at);
  if (invalidated !== undefined && invalidated <= now) return "superseded";
  const validTo = at(e.valid_to);
  if (validTo !== undefined && validTo <= now) return "ended";
  if (Date.parse(e.valid_from) > now) return "not yet valid";
  return "current";
}
