import { Type } from "@sinclair/typebox";

/**
 * The vendor key marking an `embedding` a request gives. The rule depends on the runtime's
 * configuration (the vector dimension, and whether writes take vectors at all), which the route
 * schemas, built once, do not know: the document's transform (src/http/openapi-embedding.ts)
 * writes it into each marked schema from the configuration, then drops the key. The service checks
 * the same rule where the vector is read (src/embedding/embedder.ts `toVector`, and
 * src/memory/service.ts: writes take one only from a `client` embedder).
 */
export const EMBEDDING_FIELD_KEY = "x-embedding-field";

/** `write`: an entry's vector (accepted only with the `client` embedder); `search`: a query vector. */
export type EmbeddingUse = "write" | "search";

export function EmbeddingField(use: EmbeddingUse) {
  return Type.Array(Type.Number(), { minItems: 1, maxItems: 4096, [EMBEDDING_FIELD_KEY]: use });
}
