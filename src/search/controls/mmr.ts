/** One result chosen by `mmr`: its index among the candidates and its redundancy when chosen. */
export interface MmrPick {
  index: number;
  /** Its highest similarity to the candidates chosen before it (0 for the first). */
  redundancy: number;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, 1998): picks up to `k` of `scores` (relevance,
 * in [0, 1]) one at a time, each the candidate maximising
 * (1 − diversity) × relevance − diversity × (its highest similarity to those already picked).
 * Diversity 0 keeps the ranking by relevance; 1 picks the best first, then by novelty alone. Ties
 * go to the higher relevance, then the earlier candidate, so the order is deterministic.
 *
 * `similarity(i, j)` (in [0, 1]) is asked once per remaining candidate and pick: k × n calls,
 * not n², since each candidate keeps its highest similarity so far.
 */
export function mmr(
  scores: readonly number[],
  diversity: number,
  k: number,
  similarity: (i: number, j: number) => number,
): MmrPick[] {
  const d = Math.min(1, Math.max(0, diversity));
  const redundancy = new Float64Array(scores.length);
  const left = new Set(scores.keys());
  const picks: MmrPick[] = [];
  while (picks.length < k && left.size > 0) {
    let best = -1;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (const i of left) {
      const value = (1 - d) * scores[i]! - d * redundancy[i]!;
      const better =
        value > bestValue ||
        (value === bestValue && (scores[i]! > scores[best]! || (scores[i] === scores[best] && i < best)));
      if (better) {
        best = i;
        bestValue = value;
      }
    }
    picks.push({ index: best, redundancy: redundancy[best]! });
    left.delete(best);
    for (const i of left) redundancy[i] = Math.max(redundancy[i]!, similarity(i, best));
  }
  return picks;
}
