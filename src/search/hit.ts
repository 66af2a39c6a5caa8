/** A search result of one index: an entry id and that index's score (higher is better). */
export interface Hit {
  id: string;
  score: number;
}

/** Best first; equal scores by id, so results never depend on insertion or hash order. */
export function byScoreThenId(a: Hit, b: Hit): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
