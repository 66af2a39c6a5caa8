/**
 * The recency factor of a search's `recency` control: 1 − weight + weight × 0.5^(age / half-life).
 * With weight 1 (the default) the score halves every half-life; with weight w it never falls below
 * 1 − w, so relevance keeps that share however old the entry. An age below 0 (a time after the
 * query's) counts as 0: the factor never exceeds 1, so a boosted score stays in [0, 1].
 */
export function recencyFactor(ageMs: number, halfLifeMs: number, weight = 1): number {
  const age = Number.isFinite(ageMs) ? Math.max(0, ageMs) : 0;
  const w = Math.min(1, Math.max(0, weight));
  if (!(halfLifeMs > 0)) return 1;
  return 1 - w + w * 0.5 ** (age / halfLifeMs);
}
