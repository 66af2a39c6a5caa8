import type { Entry } from "./entry.ts";

/**
 * An entry as the vault keeps it: with its sequence number, and the `valid_to` it had before a
 * superseding entry closed it, so a view "as of" an earlier time shows what was known then
 * (src/memory/temporal.ts). A model, so the vault below memory can name it.
 */
export interface StoredEntry {
  seq: number;
  entry: Entry;
  /** `valid_to` before a superseding entry closed it; present only once superseded. */
  prior_valid_to?: string | null;
  /**
   * An exception's `status` as written, before a lifecycle event closing its object resolved it
   * (actors/tenant/ingest/timeline.ts): its identity is the entry as first written.
   */
  prior_status?: "open" | "resolved";
}
