import { dotAt, normalizeInPlace } from "../../embedding/vector-math.ts";
import { byScoreThenId, type Hit } from "../hit.ts";

/**
 * Exact cosine top-k over a small candidate set (for example the entries a tag filter left),
 * best first. Pure: candidates need not be normalised; zero vectors are skipped.
 */
export function searchExact(
  query: Float32Array,
  candidates: Iterable<[string, Float32Array]>,
  k: number,
): Hit[] {
  const q = Float32Array.from(query);
  if (!normalizeInPlace(q) || k <= 0) return [];
  const hits: Hit[] = [];
  for (const [id, vec] of candidates) {
    if (vec.length !== q.length) continue;
    const norm = Math.sqrt(dotAt(vec, vec, 0));
    if (norm > 0) hits.push({ id, score: dotAt(q, vec, 0) / norm });
  }
  return hits.sort(byScoreThenId).slice(0, k);
}
