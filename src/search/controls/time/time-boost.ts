import type { Entry } from "../../../models/entry.ts";
import type { FusedHit } from "../../fusion/hybrid.ts";
import type { Span } from "./calendar.ts";
import { saidTime } from "./said-time.ts";
import type { TimeReading } from "./time-expressions.ts";
import { proposalSpan, timeFactor, windowFit } from "./window-fit.ts";

/**
 * The query's time window as a boost (docs/embedding-and-search.md, "Time in the query"): each
 * hit's fused score is multiplied by `1 − WEIGHT + WEIGHT × fit`. The fit is 1 for an entry whose
 * own words name a time in the window ("last month I flew…", said-time.ts), 0 for one whose words
 * name a time outside it, and otherwise half its valid time's fit (window-fit.ts): an entry that
 * says when beats one that was merely written then. Measured on the evaluation set (questions
 * naming a month): R@5 0 → 0.79 with these figures; a filter (weight 1) ranked the same there but
 * would drop what is written about a period after it.
 */
export const TIME_WEIGHT = 0.8;
const VALID_TIME_SHARE = 0.5;
/**
 * At most this many entries of the window are proposed as candidates (those matching the words
 * best: on the evaluation set 30 found fewer month questions' answers, 100 hardly more than 50,
 * at twice the entries to read); and only for a window of at most
 * MAX_PROPOSED_DAYS: a longer or open one ("in 2023", "since June") holds too many entries to
 * pick from by words alone, and its boost still reorders what the two sides found.
 */
export const MAX_PROPOSED = 50;
const MAX_PROPOSED_DAYS = 92;

export interface TimedHit extends FusedHit {
  time?: number;
}

/**
 * Its words are read only for an entry valid from within the window or its grace after it, where
 * what it says ("yesterday", "last month") can land in the window: reading costs ~10–40 µs an
 * entry the first time, so entries far from the window are judged by their valid time alone.
 */
export function entryFit(entry: Entry, window: Span): number {
  const validFrom = Date.parse(entry.valid_from);
  const near = proposalSpan(window);
  const said =
    validFrom >= near.from && validFrom < near.to
      ? saidTime(entry.id, entry.content, entry.valid_from)
      : undefined;
  if (said) return said.from < window.to && said.to > window.from ? 1 : 0;
  const validTo = entry.valid_to === null ? null : Date.parse(entry.valid_to);
  return VALID_TIME_SHARE * windowFit(validFrom, validTo, window);
}

/** Hits rescored by the window and sorted again (ties by id); unchanged without a window. */
export function timeBoosted<H extends FusedHit>(
  hits: readonly H[],
  reading: TimeReading,
  view: (id: string) => Entry | undefined,
): Array<H & TimedHit> {
  const window = reading.window;
  if (!window) return [...hits];
  const boosted = hits.map((hit) => {
    const entry = view(hit.id);
    const fit = entry ? entryFit(entry, window) : 0;
    const time = timeFactor(fit, TIME_WEIGHT);
    return { ...hit, score: hit.score * time, time };
  });
  return boosted.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The entries of the window (and its grace after) that share a word with the query, best BM25
 * first, at most MAX_PROPOSED: candidates the two sides may not rank high enough to propose
 * themselves, since a question naming a month often shares only a name with its answer.
 */
export function windowCandidates(
  reading: TimeReading,
  validIn: (from: number, to: number) => readonly string[],
  accept: (id: string) => boolean,
  lexicalScore: ((id: string) => number | undefined) | undefined,
): string[] {
  const window = reading.window;
  if (!window || !lexicalScore || !(window.to - window.from <= MAX_PROPOSED_DAYS * 86_400_000)) return [];
  const span = proposalSpan(window);
  const scored: Array<[string, number]> = [];
  for (const id of validIn(span.from, span.to)) {
    const score = lexicalScore(id) ?? 0;
    if (score > 0 && accept(id)) scored.push([id, score]);
  }
  scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return scored.slice(0, MAX_PROPOSED).map(([id]) => id);
}
