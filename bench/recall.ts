import { existsSync } from "node:fs";
import { join } from "node:path";
import { EntryStore } from "../actors/tenant/memory/entry-store.ts";
import type { Hit } from "../src/embedding/hit.ts";
import { TENANT_INDEX_FILE, TENANT_INDEX_TUNING } from "../src/embedding/index-tuning.ts";
import { VectorIndex } from "../src/embedding/vector-index.ts";
import { TenantVault } from "../src/vault/tenant-vault.ts";

const K = 10;
// Float32 dot products closer than this are the same score (see the recall test).
const TIE = 1e-6;

/** Share of ANN hits scoring at least the exact 10th best: ties at the cut are not misses. */
export function recall(found: Hit[][], truth: Hit[][]): number {
  let agreeing = 0;
  let total = 0;
  found.forEach((hits, i) => {
    const exact = truth[i]!;
    const cut = exact[exact.length - 1]?.score ?? Number.POSITIVE_INFINITY;
    agreeing += hits.filter((hit) => hit.score >= cut - TIE).length;
    total += exact.length;
  });
  return total ? agreeing / total : 1;
}

export interface TenantRecall {
  /** One figure per query sample. */
  recall_at_10: number[];
  queries_per_sample: number;
  /** Vectors in the saved index, and how many of them were not in its graph (0 after a full flush). */
  index_vectors: number;
  index_pending: number;
  vault_vectors: number;
  seconds: number;
}

/**
 * Recall@10 of a tenant's saved production index (`<tenantDir>/<TENANT_INDEX_FILE>`, opened with
 * the tenant's own tuning) against an exact scan of the vectors its vault stores, for each sample of
 * query vectors. The tenant's runtime must be stopped (the index is saved on close, and nothing
 * else may write the vault).
 */
export async function tenantRecall(
  tenantDir: string,
  dims: number,
  samples: Float32Array[][],
): Promise<TenantRecall> {
  const started = performance.now();
  const file = join(tenantDir, TENANT_INDEX_FILE);
  if (!existsSync(file)) throw new Error(`no saved index at ${file}: was the runtime stopped?`);
  const index = VectorIndex.open({ file, dims, ...TENANT_INDEX_TUNING });
  const exact = VectorIndex.open({
    dims,
    exactThreshold: Number.POSITIVE_INFINITY,
    maxPending: Number.POSITIVE_INFINITY,
  });
  const vault = new TenantVault(tenantDir);
  try {
    for (const record of new EntryStore(vault).vectorRecords()) exact.add(record.id, record.vector());
    const figures = samples.map((queries) => {
      const found = queries.map((q) => index.search(q, K));
      const truth = queries.map((q) => exact.search(q, K));
      return Math.round(recall(found, truth) * 10_000) / 10_000;
    });
    return {
      recall_at_10: figures,
      queries_per_sample: samples[0]?.length ?? 0,
      index_vectors: index.size,
      index_pending: index.pending,
      vault_vectors: exact.size,
      seconds: Math.round(performance.now() - started) / 1000,
    };
  } finally {
    index.close();
    exact.close();
    await vault.close();
  }
}
