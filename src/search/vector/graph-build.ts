import { closeSync, existsSync, fsyncSync, openSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Index, MetricKind, ScalarKind } from "usearch";
import type { GraphShape } from "./vector-graph.ts";

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
 * Builds the round's graph: the base loaded into memory (the owner keeps its mapping), the
 * removals, the inserts (a key held already is replaced), then saved to `out`. Pure file work on
 * the thread that calls it; the index is freed before returning.
 */
export function buildGraphRound(input: GraphRoundInput): GraphRoundOutput {
  const { shape } = input;
  const index = new Index({
    dimensions: shape.dims,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: shape.connectivity,
    expansion_add: shape.expansionAdd,
    expansion_search: shape.expansionSearch,
    multi: false,
  });
  try {
    const started = performance.now();
    if (input.base) index.load(input.base);
    const dropped = [...input.removals, ...input.keys];
    if (dropped.length && index.size() > 0) {
      const keys = BigUint64Array.from(dropped);
      const held = index.contains(keys) as boolean[];
      for (let i = 0; i < keys.length; i++) if (held[i]) index.remove(keys[i]!);
    }
    const inserting = performance.now();
    if (input.keys.length) index.add(input.keys, input.vectors, input.threads);
    const inserted = performance.now();
    index.save(input.out);
    syncFile(input.out);
    const rewriteMs = inserting - started + (performance.now() - inserted);
    return { size: index.size(), rewriteMs };
  } finally {
    // The binding frees an index only when it is collected: loading nothing frees it now.
    try {
      index.load("/dev/null");
    } catch {
      // "Failed to read 32-bit dimensions": the reset has happened.
    }
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
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
