import type { Embedder } from "./embedder.ts";
import { MAX_EMBEDDED_CHARS } from "./local-embedder.ts";
import { PieceTokenizer } from "./piece-tokenizer.ts";
import { loadStaticTable, type StaticTable } from "./static-table.ts";
import { tokenize } from "./tokenize.ts";
import { USE_LITE_DIMS } from "./use-lite.ts";
import { normalizeInPlace } from "./vector-math.ts";

/**
 * Semantic vectors from a static table distilled from the local sentence model (USE-lite,
 * docs/static-embedder.md): a text's vector is the normalised sum of its words' rows (the Zipf/SIF
 * weights are in the rows, so the sum is the recipe's weighted mean). The rows were fitted so that
 * this sum approaches the model's own vector for the text: the vectors live in the model's 512-d
 * space, and a `local` vector and a `static` one of the same text are close.
 *
 * Synchronous and cheap (microseconds a sentence, no thread, no model load: the table is read once,
 * in ~tens of milliseconds, at the first text: a runtime's start does not wait for it). It knows
 * synonyms and related words through the model, but not word order. Text without a word embeds to
 * the zero vector, which the vector index does not store.
 */
export class StaticEmbedder implements Embedder {
  readonly kind = "static" as const;
  readonly dims: number;
  private loaded: { table: StaticTable; tokenizer: PieceTokenizer } | undefined;
  /** Words seen and their rows: the piece search is most of a text's cost, and words repeat. */
  private readonly words = new Map<string, number[]>();

  /** `table`: the process's shared one unless given, read at the first text. */
  constructor(private readonly given?: StaticTable) {
    this.dims = given?.dims ?? USE_LITE_DIMS;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedSync(text));
  }

  embedSync(text: string): Float32Array {
    const { dims, values, scales } = this.parts().table;
    const vec = new Float32Array(dims);
    // The same characters as the local model sees, so an upgrade replaces a vector of the same text.
    for (const word of tokenize(text.slice(0, MAX_EMBEDDED_CHARS))) {
      for (const row of this.rowsOf(word)) {
        const scale = scales[row]!;
        const offset = row * dims;
        for (let j = 0; j < dims; j++) vec[j] = vec[j]! + values[offset + j]! * scale;
      }
    }
    normalizeInPlace(vec);
    return vec;
  }

  private rowsOf(word: string): number[] {
    let rows = this.words.get(word);
    if (rows) return rows;
    rows = this.parts().tokenizer.segment(word);
    // Emptied, not evicted one by one: a text stream's words are Zipf-distributed, so the common
    // ones are back within a few texts, and the cache stays bounded (~10 MB) at no bookkeeping.
    if (this.words.size >= MAX_CACHED_WORDS) this.words.clear();
    this.words.set(word, rows);
    return rows;
  }

  private parts(): { table: StaticTable; tokenizer: PieceTokenizer } {
    if (this.loaded) return this.loaded;
    const table = this.given ?? sharedStaticTable();
    if (table.dims !== this.dims)
      throw new Error(`the static table has ${table.dims} dims, not ${this.dims}`);
    this.loaded = { table, tokenizer: new PieceTokenizer(table.entries, table.scores) };
    return this.loaded;
  }
}

const MAX_CACHED_WORDS = 100_000;

let shared: StaticTable | undefined;

/** The process's one table (~7 MB): immutable, so every runtime and tenant shares it. */
export function sharedStaticTable(): StaticTable {
  shared ??= loadStaticTable();
  return shared;
}
