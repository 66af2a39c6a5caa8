import type { Entry } from "../../../models/entry.ts";
import type { FusedHit } from "../../fusion/hybrid.ts";

/**
 * Entries written together lend each other context at retrieval time (docs/embedding-and-search.md,
 * "Context: entries written together"). An episode is, from what an entry already carries:
 *
 * 1. its `session_id` (one conversation session, as the caller names it);
 * 2. else its source's delivery (`source.system` and `source.event_id`: one webhook event's entries);
 * 3. else the same writer (`created_by`, `agent_id`) with the same tags, valid the same UTC day:
 *    the turns of a conversation written as facts with their session's tag and time.
 *
 * Each hit then gains `SHARE × min(CAP, the summed scores of the other hits of its episode)`: an
 * entry among others that match the query is more likely the one meant than a lone match of
 * the same words elsewhere (the listener's echo "Lisbon! I've always wanted to go" in another
 * session). The gain is at most SHARE × CAP = 0.1, so it reorders close scores and never lifts
 * an unrelated entry over a clear match; a score stays at most 1 (the order is by the uncut sum).
 * Only hits take part: the pool both sides proposed.
 */
export const SHARE = 0.05;
export const CAP = 2;

/** The UTC day of an instant: the runtime writes valid_from as ISO in UTC, so its first ten characters. */
const dayOf = (iso: string) =>
  iso.endsWith("Z") && iso[10] === "T"
    ? iso.slice(0, 10)
    : new Date(Date.parse(iso)).toISOString().slice(0, 10);

export function episodeKey(entry: Entry): string {
  if (entry.session_id) return `session ${entry.session_id}`;
  const source = entry.source;
  if (source?.event_id) return `delivery ${source.system} ${source.event_id}`;
  const tags = entry.tags ?? [];
  const tagKey = tags.length < 2 ? (tags[0] ?? "") : [...tags].sort().join("\u0000");
  return `written ${entry.created_by}\u0000${entry.agent_id}\u0000${tagKey}\u0000${dayOf(entry.valid_from)}`;
}

export interface ContextHit extends FusedHit {
  /** The score its episode lent it: `score` is the fused score plus this, at most 1. */
  context?: number;
}

/** Hits with their episode's share added, sorted again (ties by id); unchanged when off. */
export function withEpisodes<H extends FusedHit>(
  hits: readonly H[],
  view: (id: string) => Entry | undefined,
  enabled = true,
): Array<H & ContextHit> {
  if (!enabled || hits.length < 2) return [...hits];
  const keys = hits.map((hit) => {
    const entry = view(hit.id);
    return entry ? episodeKey(entry) : undefined;
  });
  const sums = new Map<string, number>();
  hits.forEach((hit, i) => {
    const key = keys[i];
    if (key !== undefined) sums.set(key, (sums.get(key) ?? 0) + hit.score);
  });
  // Scores stay in [0, 1]: a gain past 1 is cut, and the order is by the uncut sum.
  const lent = hits.map((hit, i) => {
    const key = keys[i];
    const others = key === undefined ? 0 : sums.get(key)! - hit.score;
    const gain = SHARE * Math.min(CAP, Math.max(0, others));
    const score = Math.min(1, hit.score + gain);
    return { hit: gain > 0 ? { ...hit, score, context: gain } : { ...hit }, order: hit.score + gain };
  });
  lent.sort((a, b) => b.order - a.order || (a.hit.id < b.hit.id ? -1 : a.hit.id > b.hit.id ? 1 : 0));
  return lent.map((l) => l.hit);
}
