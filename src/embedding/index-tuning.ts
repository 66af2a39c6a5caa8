import type { VectorIndexOptions } from "./vector-index.ts";

/**
 * The HNSW settings of every tenant's index, shared with the benchmark so that it measures what
 * tenants run. The graph stores 8-bit vectors: its walk is coarse but cheap (a third of the f16
 * walk at 100k entries, and a third of the build time), and every candidate it proposes is then
 * rescored from the float32 vectors (VectorIndex oversamples for that), so the returned scores are
 * exact. Measured at 100k hash-embedded entries on 2 cores: recall@10 0.98, a walk of ~0.45 ms,
 * 13 s to build (connectivity 16 with expansion 96 built in 10 s but held recall at 0.94).
 */
export const TENANT_INDEX_TUNING = {
  connectivity: 24,
  expansionAdd: 128,
  expansionSearch: 128,
  quantization: "i8",
} as const satisfies Partial<VectorIndexOptions>;

/**
 * The index file's name says how its graph was built: a change of tuning starts a new graph
 * (rebuilt from the vault's vectors in the background) instead of loading an incompatible one.
 */
export const TENANT_INDEX_FILE = `vectors-${TENANT_INDEX_TUNING.quantization}-m${TENANT_INDEX_TUNING.connectivity}.usearch`;

/** The tenant's saved BM25 index (src/embedding/lexical-index.ts `toBytes`). */
export const TENANT_LEXICAL_FILE = "lexical.bm25";

/** Whether a file of a tenant directory is a search index file (of any tuning): derived data. */
export function isVectorIndexFile(name: string): boolean {
  return (name.startsWith("vectors") && name.includes(".usearch")) || name.startsWith(TENANT_LEXICAL_FILE);
}
