import type { Embedder, EmbedLane } from "./embedder.ts";
import type { LocalEmbedder } from "./local-embedder.ts";
import type { StaticEmbedder } from "./static-embedder.ts";
import { normalizeInPlace } from "./vector-math.ts";

/**
 * The share of the table's own vector an upgraded vector keeps beside the model's. Queries under
 * `tiered` are the table's, so an entry's upgraded vector that still leans a little toward the
 * table's meets them better than the model's alone. Measured on the evaluation set (table queries
 * against upgraded entries; docs/performance.md "How queries use the tiers"), in process at
 * fusion weight 0.6, R@5 / NDCG@10 / session R@5: 0.757 / 0.635 / 0.881 with the model's alone,
 * 0.760 / 0.641 / 0.881 at 0.3; through the service 0.808 / 0.666 / 0.895 → 0.807 / 0.672 / 0.893.
 * Shares 0.2–0.4 rank alike; from 0.5 on lower.
 */
export const TABLE_SHARE = 0.3;

/** An entry's upgraded vector: the model's plus `TABLE_SHARE` of the table's, unit length. */
export function upgradedVector(model: Float32Array, table: Float32Array): Float32Array {
  const out = new Float32Array(model.length);
  for (let i = 0; i < out.length; i++) out[i] = model[i]! + TABLE_SHARE * (table[i] ?? 0);
  return normalizeInPlace(out) ? out : model;
}

/**
 * Two tiers in one space (issue 30, item 2): the static table distilled from the sentence model
 * (static-embedder.ts, microseconds a text) and the model itself (local-embedder.ts, ~16 ms).
 * Whoever waits gets the table: a write's vector in its own commit, a search's query vector. The
 * background embedder's batches get the model's vector blended with the table's (upgradedVector),
 * which upgrades each entry's vector later; the two are comparable, the table having been fitted
 * to the model's vectors, so a vault may hold both.
 *
 * A re-rank of the top candidates by the model's query vector would go in the search, not here:
 * the query lane stays the table's, so no query waits on the model.
 */
export class TieredEmbedder implements Embedder {
  readonly kind = "tiered" as const;
  readonly dims: number;

  constructor(
    private readonly fast: StaticEmbedder,
    private readonly model: LocalEmbedder,
  ) {
    if (fast.dims !== model.dims) throw new Error(`the tiers' dims differ: ${fast.dims} and ${model.dims}`);
    this.dims = fast.dims;
  }

  async embed(texts: string[], lane: EmbedLane = "query"): Promise<Float32Array[]> {
    if (lane !== "background") return this.fast.embed(texts);
    const models = await this.model.embed(texts, lane);
    return models.map((vector, i) => upgradedVector(vector, this.fast.embedSync(texts[i]!)));
  }
}
