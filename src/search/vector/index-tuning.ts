import type { VectorIndexOptions } from "./vector-index.ts";

/**
 * The walk's candidate list for a graph of `size` vectors: the cheapest that held recall@10 at its
 * target in every measurement, on hash-embedded synthetic entries (bench/vector-index-figures.ts;
 * docs/performance.md). At 100k, rescoring 16 candidates: 128 → 0.961, 160 → 0.968, 192 → 0.968
 * (0.976 in another build: graphs built on several threads differ), 224 → 0.975, 256 → 0.976
 * (≥ 0.97 wanted); at 200k through the service, 224 → 0.980. At 1M (≥ 0.95 wanted): 224 → 0.950,
 * 256 → 0.951, 320 → 0.953 alone and 0.960 through the service. A small graph is mostly searched
 * exactly (below the exact threshold) and its walk is cheap.
 */
export function tenantExpansion(size: number): number {
  if (size <= 20_000) return 96;
  if (size <= 400_000) return 224;
  return 320;
}

/**
 * The HNSW settings of every tenant's index, shared with the benchmark so that it measures what
 * tenants run. The graph holds 8-bit copies of the float16 rows (vector-codec.ts); its candidates
 * are rescored from the rows, so scores are the rows' cosines. Connectivity 24 with expansion 128
 * on insert: connectivity 16 with 96 built faster but held recall at 0.94 at 100k.
 */
export const TENANT_INDEX_TUNING = {
  connectivity: 24,
  expansionAdd: 128,
  expansionSearch: tenantExpansion,
} as const satisfies Partial<VectorIndexOptions>;

/**
 * The index file's name says how its graph was built: a change of tuning starts a new graph
 * (rebuilt from the vault's vectors in the background) instead of loading an incompatible one.
 * (The name predates the float16 rows: a file of version 1 beside it is converted on open.)
 */
export const TENANT_INDEX_FILE = `vectors-i8-m${TENANT_INDEX_TUNING.connectivity}.usearch`;

/** The tenant's saved BM25 index (src/search/lexical/lexical-index.ts `toBytes`). */
export const TENANT_LEXICAL_FILE = "lexical.bm25";

/** Whether a file of a tenant directory is a search index file (of any tuning): derived data. */
export function isVectorIndexFile(name: string): boolean {
  return (name.startsWith("vectors") && name.includes(".usearch")) || name.startsWith(TENANT_LEXICAL_FILE);
}
