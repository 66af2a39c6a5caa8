/**
 * The embedder failed: an embeddings service down or refusing, the local model not loadable. The
 * message (for the log, never the caller) says how; the caller is answered 503 with `Retry-After`,
 * since the fault is the runtime's or its upstream's, never the request's.
 */
export class EmbeddingFailed extends Error {
  override readonly name = "EmbeddingFailed";
}
