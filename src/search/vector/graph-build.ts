import { existsSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type GraphShape, VectorGraph } from "./vector-graph.ts";

/**
 * One round of a vector index's graph build (vector-index.ts `beginRound`), as it crosses to the
 * builder's thread: the graph it continues (the file the owner has mapped, or none), the keys to
 * drop from it, the rows to insert (8-bit, centred), and where to write the result.
 */
export interface GraphRoundInput {
  shape: GraphShape;
  /** The graph file the round continues; none: a new graph. */
  base?: string;
  /** Keys the owner no longer holds (or holds with another vector): removed before the inserts. */
  removals: BigUint64Array;
  keys: BigUint64Array;
  vectors: Int8Array;
  /** Written and synced here; the owner renames it over its graph file when it adopts the round. */
  out: string;
  threads: number;
}

export interface GraphRoundOutput {
  /** Vectors in the written graph. */
  size: number;
  /**
   * Milliseconds spent reading the base, dropping keys and writing the result (synced): what the
   * round costs whatever it inserts, and grows with the graph (the owner spaces short rounds by it).
   */
  rewriteMs: number;
}

/** The input's buffers, handed to the builder's thread (transferred, not copied). */
export function roundBuffers(input: GraphRoundInput): ArrayBuffer[] {
  return [input.removals.buffer, input.keys.buffer, input.vectors.buffer] as ArrayBuffer[];
}

/**
 * A round as a vector index (vector-index.ts) hands it to a builder (graph-builder.ts): its
 * input, and the generation of the graph it continues (a round of an earlier one, dropped by a
 * rebuild or a close, is not adopted).
 */
export interface GraphRound {
  input: GraphRoundInput;
  generation: number;
  /** The input's removals, kept by the owner: the input's buffers are transferred to the thread. */
  removals: number[];
}

/**
 * Builds the round's graph: the base read into memory (the owner keeps its mapping), the removals,
 * the inserts (a key held already is replaced), then written to `out` and synced. Pure file work
 * on the thread that calls it; the graph is freed before returning.
 */
export function buildGraphRound(input: GraphRoundInput): GraphRoundOutput {
  const graph = new VectorGraph(input.shape);
  try {
    const started = performance.now();
    if (input.base) graph.view(input.base);
    for (const key of input.removals) graph.remove(Number(key));
    graph.mutable();
    const inserting = performance.now();
    if (input.keys.length) graph.add(input.keys, input.vectors, input.threads);
    const inserted = performance.now();
    graph.save(input.out);
    const rewriteMs = inserting - started + (performance.now() - inserted);
    return { size: graph.size, rewriteMs };
  } finally {
    graph.clear();
  }
}

/** A round's graph file is `<file>.round<n>` (n unique in the process) until it is adopted. */
const ROUND_SUFFIX = ".round";
let roundFiles = 0;

/** A new round's output file for the graph file `file`. */
export function roundFileOf(file: string): string {
  return `${file}${ROUND_SUFFIX}${++roundFiles}`;
}

/** Round files left by a process that ended before adopting them (or by a closed index). */
export function removeRoundFiles(file: string): void {
  const name = basename(file) + ROUND_SUFFIX;
  const dir = dirname(file);
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) if (entry.startsWith(name)) rmSync(join(dir, entry), { force: true });
}
