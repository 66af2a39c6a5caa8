/**
 * `bun bench/vector-index-figures.ts [entries]` (default 100,000): the vector index alone, on the
 * hash-embedded synthetic corpus of the search bench, in a file-backed index as tenants open it
 * (TENANT_INDEX_TUNING). Measures: adds/s (no graph insertion), a search over an all-tail index
 * (native scan of the 8-bit copies), the background build's vectors/s (chunks of 1,000), recall@10
 * against a float32 exact scan and the walk's latency for each candidate-list length, then (in a
 * fresh process, `--reopen`) the time to open the saved index, the first search and RSS after
 * 500 searches. Written to bench/results/vector-index-<entries>.json. With `--static`: the static
 * table's vectors (anisotropic: the graph is centred on their mean, vector-centre.ts) of memory
 * sentences from the distillation's generator, written to vector-index-static-<entries>.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exactSearch, type Matches, MetricKind } from "usearch";
import { memorySentences } from "../scripts/distil/memory-sentences.ts";
import { HashEmbedder } from "../src/embedding/hash-embedder.ts";
import { StaticEmbedder } from "../src/embedding/static-embedder.ts";
import { TENANT_INDEX_TUNING, tenantExpansion } from "../src/search/vector/index-tuning.ts";
import { VectorIndex } from "../src/search/vector/vector-index.ts";
import { syntheticCorpus, syntheticId } from "../test/search/vector/synthetic-corpus.ts";
import { Rng } from "./eval/dataset/prng.ts";

const K = 10;
const QUERIES = 300;
const EXPANSIONS = [64, 96, 128, 160, 192, 224, 256, 320];

const pct = (ms: number[], p: number) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! * 1000) / 1000;
};
const rssMb = () => {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (name: string) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? 0);
  return {
    rss: Math.round(kb("VmRSS") / 1024),
    anon: Math.round(kb("RssAnon") / 1024),
    file: Math.round(kb("RssFile") / 1024),
  };
};

function time<T>(fn: () => T): { ms: number; value: T } {
  const t = performance.now();
  const value = fn();
  return { ms: performance.now() - t, value };
}

type SyncEmbedder = { readonly dims: number; embedSync(text: string): Float32Array };
const STATIC = process.argv.includes("--static");
const args = process.argv.filter((a) => a !== "--static");

/** The embedder and texts measured: hash on the synthetic corpus, or the static table on memory sentences. */
function corpus(
  n: number,
  queries: number,
): { embedder: SyncEmbedder; documents: string[]; queries: string[] } {
  if (!STATIC) return { embedder: new HashEmbedder(), ...syntheticCorpus(n, queries, 11) };
  const documents = memorySentences(new Rng(11), n);
  return { embedder: new StaticEmbedder(), documents, queries: memorySentences(new Rng(12), queries) };
}

async function reopen(file: string, dims: number, n: number): Promise<void> {
  const { embedder, queries } = corpus(1000, 500);
  const qv = queries.map((q) => embedder.embedSync(q));
  const before = rssMb();
  const opened = time(() => VectorIndex.open({ file, dims, ...TENANT_INDEX_TUNING }));
  const index = opened.value;
  const first = time(() => index.search(qv[0]!, 60));
  const ms = qv.map((q) => time(() => index.search(q, 60)).ms);
  console.log(
    JSON.stringify({
      entries: n,
      open_ms: Math.round(opened.ms * 10) / 10,
      first_search_ms: Math.round(first.ms * 100) / 100,
      search_k60_p50_ms: pct(ms, 0.5),
      search_k60_p99_ms: pct(ms, 0.99),
      rss_before_open: before,
      rss_after_500_searches: rssMb(),
    }),
  );
  index.close();
}

async function main(): Promise<void> {
  if (args[2] === "--reopen") return reopen(args[3]!, Number(args[4]), Number(args[5]));
  const { embedder, documents, queries } = corpus(Number(args[2] ?? 100_000), QUERIES);
  const n = documents.length;
  const dims = embedder.dims;
  const dir = mkdtempSync(join(tmpdir(), "vector-figures-"));
  const file = join(dir, "index.usearch");
  try {
    const vectors = documents.map((d) => embedder.embedSync(d));
    const qv = queries.map((q) => embedder.embedSync(q));
    const out: Record<string, unknown> = { entries: n, dims };

    const index = VectorIndex.open({ file, dims, ...TENANT_INDEX_TUNING });
    const fill = time(() => {
      for (let i = 0; i < n; i++) index.add(syntheticId(i), vectors[i]!);
    });
    out.add_per_s = Math.round(n / (fill.ms / 1000));
    out.rss_after_adds = rssMb();
    const tailMs = qv.slice(0, 50).map((q) => time(() => index.search(q, 60)).ms);
    out.all_tail_search_k60_p50_ms = pct(tailMs, 0.5);

    const build = time(() => {
      while (index.pending > 0) index.flush(1000);
    });
    out.build_vectors_per_s = Math.round(n / (build.ms / 1000));
    out.rss_after_build = rssMb();

    // The truth in float32 (a native exact scan), and each hit judged by its float32 cosine.
    const unit = (v: Float32Array) => {
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const data = new Float32Array(n * dims);
    for (let i = 0; i < n; i++) data.set(unit(vectors[i]!), i * dims);
    vectors.length = 0;
    const cos = (q: Float32Array, row: number) => {
      let s = 0;
      for (let j = 0; j < dims; j++) s += q[j]! * data[row * dims + j]!;
      return s;
    };
    const uq = qv.map(unit);
    const cuts = uq.map((q) => {
      const found = exactSearch(data, q, dims, K, MetricKind.Cos, 0) as Matches;
      return cos(q, Number(found.keys[K - 1]!));
    });
    const rows = new Map(Array.from({ length: n }, (_, i) => [syntheticId(i), i]));
    const rowOf = (id: string) => rows.get(id)!;
    const recallAt = (expansion: number) => {
      const probe = VectorIndex.open({ file, dims, ...TENANT_INDEX_TUNING, expansionSearch: expansion });
      let agreeing = 0;
      const ms: number[] = [];
      uq.forEach((q, i) => {
        const t = performance.now();
        const hits = probe.search(q, K);
        ms.push(performance.now() - t);
        agreeing += hits.filter((h) => cos(q, rowOf(h.id)) >= cuts[i]! - 1e-6).length;
      });
      probe.close();
      return {
        expansion,
        recall_at_10: agreeing / (uq.length * K),
        p50_ms: pct(ms, 0.5),
        p99_ms: pct(ms, 0.99),
      };
    };
    index.save();
    index.close();
    out.tenant_expansion = tenantExpansion(n);
    out.recall_by_expansion = EXPANSIONS.map(recallAt);

    const reopenArgs = ["--reopen", file, String(dims), String(n), ...(STATIC ? ["--static"] : [])];
    const child = Bun.spawnSync(["bun", import.meta.path, ...reopenArgs]);
    out.reopen = JSON.parse(child.stdout.toString().trim().split("\n").at(-1)!);
    console.log(JSON.stringify(out, null, 2));
    mkdirSync("bench/results", { recursive: true });
    writeFileSync(
      `bench/results/vector-index-${STATIC ? "static-" : ""}${n}.json`,
      `${JSON.stringify({ ...out, at: new Date().toISOString() }, null, 2)}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
