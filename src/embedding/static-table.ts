import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The distilled static table (docs/static-embedder.md): one int8 row per vocabulary entry with a
 * per-row scale, built by `bun run embedder:distil` (scripts/distil-embedder.ts) and committed in
 * src/embedding/static-table/ beside its recipe record.
 *
 * - `vocab.tsv`: one entry a line, `text<TAB>log-probability`; row i is line i. Texts are
 *   SentencePiece pieces ("▁" starts a word) and whole words, lower case.
 * - `table.bin`: rows × dims int8 values, then rows float32 scales (little-endian): row i's
 *   value j is `int8[i * dims + j] * scale[i]`. The Zipf/SIF weight is already in the rows.
 * - `recipe.json`: how it was built, the SHA-256 of both files, its evaluation figures.
 */
export const STATIC_TABLE_DIR = join(import.meta.dir, "static-table");

export const STATIC_TABLE_FILES = { vocab: "vocab.tsv", table: "table.bin", recipe: "recipe.json" } as const;

export interface StaticTable {
  readonly dims: number;
  readonly entries: string[];
  readonly scores: Float32Array;
  readonly values: Int8Array;
  readonly scales: Float32Array;
}

/** The table's values and scales in one buffer, as `table.bin` holds them. */
export function encodeTable(values: Int8Array, scales: Float32Array): Uint8Array {
  const out = new Uint8Array(values.byteLength + scales.byteLength);
  out.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), 0);
  const view = new DataView(out.buffer);
  for (let i = 0; i < scales.length; i++) view.setFloat32(values.byteLength + i * 4, scales[i]!, true);
  return out;
}

export function encodeVocab(entries: readonly string[], scores: Float32Array): string {
  return `${entries.map((entry, i) => `${entry}\t${scores[i]}`).join("\n")}\n`;
}

/** Reads the committed table (~10 ms for a few MB); throws with the file's name when it is malformed. */
export function loadStaticTable(dir = STATIC_TABLE_DIR): StaticTable {
  const recipe = JSON.parse(readFileSync(join(dir, STATIC_TABLE_FILES.recipe), "utf8")) as {
    dims: number;
  };
  const lines = readFileSync(join(dir, STATIC_TABLE_FILES.vocab), "utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const entries = new Array<string>(lines.length);
  const scores = new Float32Array(lines.length);
  lines.forEach((line, i) => {
    const tab = line.lastIndexOf("\t");
    entries[i] = line.slice(0, tab);
    scores[i] = Number(line.slice(tab + 1));
  });
  const bytes = readFileSync(join(dir, STATIC_TABLE_FILES.table));
  const rows = entries.length;
  const dims = recipe.dims;
  if (bytes.byteLength !== rows * dims + rows * 4) {
    throw new Error(
      `${STATIC_TABLE_FILES.table} has ${bytes.byteLength} bytes, expected ${rows * (dims + 4)}`,
    );
  }
  const values = new Int8Array(bytes.buffer, bytes.byteOffset, rows * dims);
  const view = new DataView(bytes.buffer, bytes.byteOffset + rows * dims, rows * 4);
  const scales = new Float32Array(rows);
  for (let i = 0; i < rows; i++) scales[i] = view.getFloat32(i * 4, true);
  return { dims, entries, scores, values, scales };
}
