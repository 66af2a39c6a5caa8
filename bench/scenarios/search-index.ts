import { HashEmbedder } from "../../src/embedding/hash-embedder.ts";
import { searchHybrid } from "../../src/search/fusion/hybrid-search.ts";
import { LexicalIndex } from "../../src/search/lexical/lexical-index.ts";
import { TENANT_INDEX_TUNING } from "../../src/search/vector/index-tuning.ts";
import { VectorIndex } from "../../src/search/vector/vector-index.ts";
import { syntheticCorpus, syntheticId } from "../../test/search/vector/synthetic-corpus.ts";
import { recall } from "../recall.ts";

export interface SearchIndexBench {
  n: number;
  build_ms: number;
  ann_p50_ms: number;
  ann_p99_ms: number;
  exact_p50_ms: number;
  lexical_p50_ms: number;
  hybrid_p50_ms: number;
  hybrid_p99_ms: number;
  recall_at_10: number;
}

const K = 10;

/**
 * In-process search latency over `n` generated entries: hash embedding, the usearch graph, BM25
 * and their fusion, as the tenant actor runs them. `build_ms` covers embedding and indexing
 * every entry, graph insertion included; `recall_at_10` compares the graph with an exact scan
 * (tie-aware). Hybrid timings include embedding the query text.
 */
export async function benchSearchIndex(n: number, queries = 500): Promise<SearchIndexBench> {
  const embedder = new HashEmbedder();
  const corpus = syntheticCorpus(n, queries, 99);
  const buildStart = performance.now();
  const vectors = VectorIndex.open({ dims: embedder.dims, ...TENANT_INDEX_TUNING });
  const lexical = new LexicalIndex();
  corpus.documents.forEach((text, i) => {
    const id = syntheticId(i);
    vectors.add(id, embedder.embedSync(text));
    lexical.add(id, text);
  });
  vectors.flush();
  const build_ms = performance.now() - buildStart;

  const exact = exactIndex(vectors.dims, corpus.documents, embedder);
  const queryVectors = corpus.queries.map((text) => embedder.embedSync(text));
  warmUp(vectors, lexical, corpus.queries, queryVectors);

  const ann = time(queryVectors, (q) => vectors.search(q, K));
  const exactRun = time(queryVectors, (q) => exact.search(q, K));
  const lexicalRun = time(corpus.queries, (text) => lexical.search(text, K * 3));
  const hybrid = time(corpus.queries, (text) =>
    searchHybrid({ vectors, lexical: () => lexical }, { text, vector: embedder.embedSync(text), k: K }),
  );
  exact.close();
  vectors.close();

  return {
    n,
    build_ms: round(build_ms),
    ann_p50_ms: percentile(ann.ms, 0.5),
    ann_p99_ms: percentile(ann.ms, 0.99),
    exact_p50_ms: percentile(exactRun.ms, 0.5),
    lexical_p50_ms: percentile(lexicalRun.ms, 0.5),
    hybrid_p50_ms: percentile(hybrid.ms, 0.5),
    hybrid_p99_ms: percentile(hybrid.ms, 0.99),
    recall_at_10: round(recall(ann.results, exactRun.results), 4),
  };
}

/**
 * The ground truth: the same vectors, never put in a graph (no flush), searched below an infinite
 * exact threshold, so every search is a full scan.
 */
function exactIndex(dims: number, documents: string[], embedder: HashEmbedder): VectorIndex {
  const exact = VectorIndex.open({ dims, exactThreshold: Number.POSITIVE_INFINITY });
  documents.forEach((text, i) => {
    exact.add(syntheticId(i), embedder.embedSync(text));
  });
  return exact;
}

/** Lets the JIT compile the hot paths before anything is timed. */
function warmUp(
  vectors: VectorIndex,
  lexical: LexicalIndex,
  texts: string[],
  queryVectors: Float32Array[],
): void {
  for (let i = 0; i < Math.min(50, texts.length); i++) {
    vectors.search(queryVectors[i]!, K);
    lexical.search(texts[i]!, K * 3);
    searchHybrid({ vectors, lexical: () => lexical }, { text: texts[i]!, vector: queryVectors[i]!, k: K });
  }
}

function time<Q, R>(queries: Q[], run: (query: Q) => R): { ms: number[]; results: R[] } {
  const ms: number[] = [];
  const results: R[] = [];
  for (const query of queries) {
    const start = performance.now();
    results.push(run(query));
    ms.push(performance.now() - start);
  }
  return { ms, results };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
}

function round(value: number, digits = 3): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

if (import.meta.main) {
  const sizes = process.argv.slice(2).map(Number).filter(Number.isFinite);
  for (const n of sizes.length ? sizes : [10_000]) console.log(JSON.stringify(await benchSearchIndex(n)));
}
