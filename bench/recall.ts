import { existsSync } from "node:fs";
import { join } from "node:path";
import { BatchMatches, exactSearch, type Matches, MetricKind } from "usearch";
import { EntryStore } from "../actors/tenant/memory/entry-store.ts";
import type { Hit } from "../src/search/hit.ts";
import { TENANT_INDEX_FILE, TENANT_INDEX_TUNING } from "../src/search/vector/index-tuning.ts";
import { VectorIndex } from "../src/search/vector/vector-index.ts";
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

/** Vault vectors scanned exactly at a time: bounds the bench's memory whatever the tenant's size. */
const CHUNK = 65_536;

/**
 * Recall@10 of a tenant's saved production index (`<tenantDir>/<TENANT_INDEX_FILE>`, opened with
 * the tenant's own tuning, searched as the tenant searches it) against an exact scan of the
 * vectors its vault stores, for each sample of query vectors. The tenant's runtime must be stopped
 * (the index is saved on close, and nothing else may write the vault).
 *
 * The exact scan does not use the index's code: the vault's vectors are streamed in chunks through
 * usearch's brute-force `exactSearch` for candidates, and every score compared (the exact best and
 * the hits the index found) is the cosine with the vault's float32 vector, computed here, so the
 * figure does not move with how the index stores or rescores its vectors.
 */
export async function tenantRecall(
  tenantDir: string,
  dims: number,
  samples: Float32Array[][],
): Promise<TenantRecall> {
  const started = performance.now();
  const file = join(tenantDir, TENANT_INDEX_FILE);
  if (!existsSync(file)) throw new Error(`no saved index at ${file}: was the runtime stopped?`);
  const queries = samples.flat().map(unit);
  const index = VectorIndex.open({ file, dims, ...TENANT_INDEX_TUNING });
  let found: string[][];
  let indexVectors: number;
  let indexPending: number;
  try {
    found = queries.map((q) => index.search(q, K).map((hit) => hit.id));
    indexVectors = index.size;
    indexPending = index.pending;
  } finally {
    index.close();
  }
  const vault = new TenantVault(tenantDir);
  let truth: ExactTopK;
  try {
    truth = exactTopK(new EntryStore(vault).vectorRecords(), queries, found, dims);
  } finally {
    await vault.close();
  }
  let offset = 0;
  const figures = samples.map((sample) => {
    const range = Array.from({ length: sample.length }, (_, i) => offset + i);
    offset += sample.length;
    const foundHits = range.map((q) => found[q]!.map((id) => ({ id, score: truth.scoreOf(q, id) })));
    return (
      Math.round(
        recall(
          foundHits,
          range.map((q) => truth.best[q]!),
        ) * 10_000,
      ) / 10_000
    );
  });
  return {
    recall_at_10: figures,
    queries_per_sample: samples[0]?.length ?? 0,
    index_vectors: indexVectors,
    index_pending: indexPending,
    vault_vectors: truth.scanned,
    seconds: Math.round(performance.now() - started) / 1000,
  };
}

export interface ExactTopK {
  /** Each query's exact best K, best first. */
  best: Hit[][];
  /** The exact cosine of query `q` with the vector of `id` (-Infinity when the vault lacks it). */
  scoreOf(q: number, id: string): number;
  scanned: number;
}

/**
 * The exact top K of each unit query over `records`, `chunkSize` vectors at a time, and the exact
 * scores of the `found` ids of each query.
 */
export function exactTopK(
  records: Iterable<{ id: string; vector(): Float32Array }>,
  queries: Float32Array[],
  found: string[][],
  dims: number,
  chunkSize = CHUNK,
): ExactTopK {
  const queryMatrix = new Float32Array(queries.length * dims);
  for (const [i, q] of queries.entries()) queryMatrix.set(q, i * dims);
  // The vectors of found hits, scored as they stream past.
  const wanted = new Map<string, number[]>();
  found.forEach((ids, q) => {
    for (const id of ids) wanted.set(id, [...(wanted.get(id) ?? []), q]);
  });
  const foundScores = new Map<string, number>();
  const best: Hit[][] = queries.map(() => []);
  const chunk = new Float32Array(chunkSize * dims);
  const ids: string[] = [];
  let scanned = 0;
  const scanChunk = () => {
    if (ids.length === 0) return;
    const rows = chunk.subarray(0, ids.length * dims);
    const count = Math.min(K, ids.length);
    const matches = exactSearch(rows, queryMatrix, dims, count, MetricKind.Cos);
    const keysOf = (q: number) =>
      matches instanceof BatchMatches ? matches.get(q).keys : (matches as Matches).keys;
    queries.forEach((query, q) => {
      const candidates = [...keysOf(q)].map((key) => {
        const row = Number(key);
        return { id: ids[row]!, score: dot(query, rows, row * dims) };
      });
      best[q] = [...best[q]!, ...candidates].sort((a, b) => b.score - a.score).slice(0, K);
    });
    ids.length = 0;
  };
  for (const record of records) {
    const vector = unit(record.vector());
    if (vector.length !== dims) continue;
    for (const q of wanted.get(record.id) ?? [])
      foundScores.set(`${q}:${record.id}`, dot(queries[q]!, vector, 0));
    chunk.set(vector, ids.length * dims);
    ids.push(record.id);
    scanned++;
    if (ids.length === chunkSize) scanChunk();
  }
  scanChunk();
  return {
    best,
    scoreOf: (q, id) => foundScores.get(`${q}:${id}`) ?? Number.NEGATIVE_INFINITY,
    scanned,
  };
}

/** A unit-length copy (cosine = dot of unit vectors). */
export function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

/** Dot product of `a` with the row of `rows` starting at `at`, in double precision. */
function dot(a: Float32Array, rows: Float32Array, at: number): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * rows[at + i]!;
  return sum;
}
