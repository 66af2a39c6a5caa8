/**
 * Source spread: a search whose first results all come from one source (ten stage changes of the
 * marketing CRM for "what do we know about Acme?") hides what the other sources hold about the
 * same thing (its tickets, its invoices). When a source has an eligible candidate (one that shares
 * the query's anchor, `sharesAnchor`, and scores at least a quarter of the best) but none among the
 * first `limit`, its best such candidate takes the place of the weakest result of the source
 * holding the most places. Bounded: at most one entry lifted per missing source, a
 * source's only result is never displaced, the first result never moves, and the kept results stay
 * in score order. Deterministic: candidates come in rank order and ties go to the earlier one.
 */

import { matchedWordsOf, type TermScorer } from "../lexical/matched-terms.ts";

/** A lifted candidate scores at least this share of the best score: related, not merely present. */
export const SPREAD_MIN_SHARE = 0.25;

/** What the anchor needs of the BM25 index (lexical-index.ts). */
export interface AnchorIndex extends TermScorer {
  /** The best BM25 a document could reach on a query: the rarer a word, the higher. */
  ceiling(query: string): number;
}

/** A word within this share of the rarest word's weight is as much an anchor as the rarest. */
export const ANCHOR_SHARE = 0.8;

/**
 * Which candidates share the query's anchor with the best result: the rarest query words the best
 * result matched (a company's, a person's or a product's name in "what do we know about Acme?"),
 * each weighing at least `ANCHOR_SHARE` of the rarest (two words nearly as rare are both kept:
 * which one is the name is not known). A lifted entry must match one, so it is about the same
 * thing, not merely about the same kind of thing. The best result shares no word with the query:
 * no candidate qualifies. `queryWords`: the query's matchable words (matched-terms.ts
 * `queryWords`, read from the search's query analysis).
 */
export function sharesAnchor(
  index: AnchorIndex,
  queryWords: readonly string[],
  bestId: string,
): (id: string) => boolean {
  const words = matchedWordsOf(index, queryWords, [bestId])[0]!.map((word) => ({
    word,
    weight: index.ceiling(word),
  }));
  const rarest = Math.max(0, ...words.map((w) => w.weight));
  const anchors = words.filter((w) => rarest > 0 && w.weight >= rarest * ANCHOR_SHARE);
  const scores = anchors.map((w) => index.scorer(w.word));
  return (id) => scores.some((score) => (score(id) ?? 0) > 0);
}

export interface SpreadPick {
  /** Index among the candidates. */
  index: number;
  /** Lifted from below the first `limit` so that its source has a place. */
  lifted: boolean;
}

/**
 * `scores` best first; `groups[i]` the source of candidate i. Returns the indices of the first
 * `limit` after the spread, in score order.
 */
export function spreadBySource(
  scores: readonly number[],
  groups: readonly string[],
  limit: number,
  opts: { minShare?: number; eligible?: (i: number) => boolean } = {},
): SpreadPick[] {
  const { minShare = SPREAD_MIN_SHARE, eligible = () => true } = opts;
  const kept = [...Array(Math.min(limit, scores.length)).keys()];
  const lifted = new Set<number>();
  const floor = (scores[0] ?? 0) * minShare;
  const present = new Set(kept.map((i) => groups[i]));
  for (let i = kept.length; i < scores.length && scores[i]! >= floor; i++) {
    const group = groups[i]!;
    if (present.has(group) || !eligible(i)) continue;
    const out = weakestOfLargest(kept, groups);
    if (out === undefined) break;
    kept.splice(kept.indexOf(out), 1, i);
    kept.sort((a, b) => a - b);
    lifted.add(i);
    present.add(group);
  }
  return kept.map((index) => ({ index, lifted: lifted.has(index) }));
}

/** The last kept index of the source with the most kept places, if it holds two or more. */
function weakestOfLargest(kept: readonly number[], groups: readonly string[]): number | undefined {
  const counts = new Map<string, number>();
  for (const i of kept) counts.set(groups[i]!, (counts.get(groups[i]!) ?? 0) + 1);
  let largest: string | undefined;
  let most = 1;
  // Ties go to the source ranked first (kept is in rank order).
  for (const [group, n] of counts) if (n > most) [largest, most] = [group, n];
  if (largest === undefined) return undefined;
  for (let k = kept.length - 1; k >= 0; k--) if (groups[kept[k]!] === largest) return kept[k];
  return undefined;
}

/**
 * The spread over sources, then over the objects within them (an entity question: "what do we
 * know about Acme?" shows its deal, its contact, its tickets and its invoices, not ten stage
 * changes of one deal): a second pass of the same rule over the first pass's page, each (source,
 * object) a group. A lift there takes the place of the weakest result of the object holding the
 * most places, so every source the first pass placed keeps a place. `objects[i]`: candidate i's
 * object ("" for none); `objectEligible` (default `eligible`) says which may be lifted for their
 * object. Returns the indices in score order.
 */
export function spreadBySourceAndObject(
  scores: readonly number[],
  groups: readonly string[],
  objects: readonly string[],
  limit: number,
  opts: {
    minShare?: number;
    eligible?: (i: number) => boolean;
    objectEligible?: (i: number) => boolean;
  } = {},
): SpreadPick[] {
  const first = spreadBySource(scores, groups, limit, opts);
  const picked = new Set(first.map((p) => p.index));
  // The first pass's page first, then the others in rank order: the second pass's candidates.
  const order = [...first.map((p) => p.index), ...[...scores.keys()].filter((i) => !picked.has(i))];
  const second = spreadBySource(
    order.map((i) => scores[i]!),
    order.map((i) => `${groups[i]}\u0000${objects[i]}`),
    limit,
    { ...opts, eligible: (k) => (opts.objectEligible ?? opts.eligible ?? (() => true))(order[k]!) },
  );
  const lifted = new Set(first.filter((p) => p.lifted).map((p) => p.index));
  return second
    .map(({ index, lifted: now }) => ({ index: order[index]!, lifted: now || lifted.has(order[index]!) }))
    .sort((a, b) => a.index - b.index);
}
