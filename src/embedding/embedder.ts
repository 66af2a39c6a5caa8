import { ValidationFailed } from "../errors/domain-errors.ts";
import { normalizeInPlace, vectorProblem } from "./vector-math.ts";

export type EmbedderKind = "hash" | "http" | "client" | "local" | "static" | "tiered";

/**
 * Who waits for a call: a request (`query`, the default: a search's query vector, an inline
 * write) or nobody (`background`, the background embedder's batches). An embedder that queues
 * its calls (the local model) serves the query lane first.
 */
export type EmbedLane = "query" | "background";

/** Turns texts into unit-length vectors of `dims` numbers, one per text, in order. */
export interface Embedder {
  readonly kind: EmbedderKind;
  readonly dims: number;
  embed(texts: string[], lane?: EmbedLane): Promise<Float32Array[]>;
}

/**
 * Checks a caller-supplied `embedding` (CONTRACT §6: its length must equal the configured dims)
 * and returns it L2-normalised, so cosine scores of client vectors match the other embedders'.
 * An all-zero vector has no direction, so it is rejected too.
 */
export function toVector(values: number[], dims: number): Float32Array {
  // Checked after the conversion too: a finite double such as 1e300 overflows a float32.
  const vec = Float32Array.from(values);
  const problem = vectorProblem(values, dims) ?? vectorProblem(vec, dims);
  if (problem) throw embeddingInvalid(`embedding ${problem}`);
  if (!normalizeInPlace(vec)) throw embeddingInvalid("embedding must not be all zeros");
  return vec;
}

function embeddingInvalid(message: string): ValidationFailed {
  return new ValidationFailed(message, [{ path: "/embedding", message }]);
}
