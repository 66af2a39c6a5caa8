import type { Embedder, EmbedLane } from "./embedder.ts";
import type { LocalEmbedder } from "./local-embedder.ts";
import type { StaticEmbedder } from "./static-embedder.ts";

/**
 * Two tiers in one space (issue 30, item 2): the static table distilled from the sentence model
 * (static-embedder.ts, microseconds a text) and the model itself (local-embedder.ts, ~16 ms).
 * Whoever waits gets the table: a write's vector in its own commit, a search's query vector. The
 * background embedder's batches get the model, which upgrades each entry's vector later; the two
 * are comparable, the table having been fitted to the model's vectors, so a vault may hold both.
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

  embed(texts: string[], lane: EmbedLane = "query"): Promise<Float32Array[]> {
    return lane === "background" ? this.model.embed(texts, lane) : this.fast.embed(texts);
  }
}
