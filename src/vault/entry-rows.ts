import { CATEGORIES, type Category } from "../models/category.ts";
import { subjectOf } from "../models/scope.ts";
import type { StoredEntry } from "../models/stored-entry.ts";

/**
 * The one index record of an entry (the `entry-rows` table, keyed by its sequence number): what
 * scans by category, tag and valid time and the search's visibility filter need, so none of them
 * decodes an entry to decide. Rewritten whenever the entry is (a supersession closes its valid
 * time, a correction or retraction expires it), removed with it by an erasure.
 *
 *   [id, category index, tags, valid_from, valid_to, recorded_at, expired_at, invalidated_at,
 *    prior valid_to, subject, session_id, agent_id] — times in epoch ms, null where the entry has
 *    none. Rows written before scopes end at the prior valid_to (migrations.ts fills them in).
 */
export type EntryRow = [
  id: string,
  category: number,
  tags: string[],
  validFrom: number,
  validTo: number | null,
  recordedAt: number,
  expiredAt: number | null,
  invalidatedAt: number | null,
  priorValidTo: number | null,
  subject?: string | null,
  sessionId?: string | null,
  agentId?: string | null,
];

/** The length of a row with its scopes (an earlier row is shorter). */
export const ROW_LENGTH = 12;

const CATEGORY_INDEX = new Map<string, number>(CATEGORIES.map((c, i) => [c, i]));

export const categoryIndex = (category: Category): number => CATEGORY_INDEX.get(category) ?? -1;

const ms = (iso: string | null | undefined): number | null => (iso == null ? null : Date.parse(iso));

export function entryRow(stored: StoredEntry): EntryRow {
  const e = stored.entry;
  return [
    e.id,
    categoryIndex(e.category),
    [...new Set(e.tags ?? [])],
    Date.parse(e.valid_from),
    ms(e.valid_to),
    Date.parse(e.recorded_at),
    ms(e.expired_at),
    ms(e.invalidated_at),
    ms(stored.prior_valid_to),
    subjectOf(e) ?? null,
    e.session_id ?? null,
    e.agent_id ?? null,
  ];
}
