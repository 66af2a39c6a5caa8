import type { Telemetry } from "../telemetry/telemetry.ts";
import type { Embedder } from "./embedder.ts";

/**
 * The embedder, with each call timed (`memory_runtime_embedding_seconds`), its texts counted and,
 * with tracing on, run in an `embedding` span: a query's under its search, an entry's under its
 * write, a background batch's on its own. The embedder itself is unchanged.
 */
export function instrumentedEmbedder(embedder: Embedder, telemetry: Telemetry): Embedder {
  const { kind, dims } = embedder;
  const texts = telemetry.metrics.embeddedTexts.labels(kind);
  return {
    kind,
    dims,
    embed: (batch, lane) =>
      telemetry.time("embedding", [kind], async () => {
        const vectors = await embedder.embed(batch, lane);
        texts.inc(batch.length);
        return vectors;
      }),
  };
}
