import type { VectorIndexOptions } from "./vector-index.ts";

/**
 * The HNSW settings of every tenant's index, shared with the benchmark so that it measures what
 * tenants run. f16 graph storage and a modest insert expansion keep graph insertion cheap (it runs
 * inside the tenant actor, between messages) at a recall@10 that stays above 0.95; scores are
 * always recomputed from the float32 vectors, so quantization never changes a returned score.
 */
export const TENANT_INDEX_TUNING = {
  connectivity: 16,
  expansionAdd: 96,
  expansionSearch: 128,
  quantization: "f16",
} as const satisfies Partial<VectorIndexOptions>;
