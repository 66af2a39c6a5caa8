import type { Clock } from "../runtime/clock.ts";
import type { ForegroundSignal } from "../runtime/foreground-load.ts";
import { EmbedScheduler, type SchedulerLimits } from "./embed-scheduler.ts";
import type { Embedder, EmbedderKind } from "./embedder.ts";
import { MAX_LOCAL_BATCH } from "./local-model.ts";
import { StaticEmbedder } from "./static-embedder.ts";
import { UpgradePacing } from "./upgrade-pacing.ts";

/** Retries of a failing embedder wait 1 s, 2 s, 4 s … and at most a minute. */
const BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

/**
 * Texts per background batch of the local model. The model runs one chunk at a time (in its
 * worker thread), a search's query first (local-model.ts), so a query waits for the chunk being
 * embedded; batches barely amortise
 * (measured: 2 to 16 texts a call embed about as many texts a second, ~10–30% more than single
 * texts), while that wait grows with the batch (a search's p50 while a backlog drained: 132 ms
 * with batches of 4). 2 keeps the throughput of larger batches with the shortest wait.
 */
export const LOCAL_BACKGROUND_BATCH = Math.min(2, MAX_LOCAL_BATCH);

/**
 * Batch size and concurrency per embedder. The local model computes on one thread, one batch at a
 * time; an embeddings service takes larger batches and a couple of requests at once; hashing is
 * microseconds a text.
 */
export function limitsFor(kind: EmbedderKind): SchedulerLimits {
  const backoff = { backoffMs: BACKOFF_MS, maxBackoffMs: MAX_BACKOFF_MS };
  switch (kind) {
    case "local":
    case "tiered":
      return { batchSize: LOCAL_BACKGROUND_BATCH, concurrency: 1, ...backoff };
    case "http":
      return { batchSize: 64, concurrency: 2, ...backoff };
    default:
      return { batchSize: 256, concurrency: 1, ...backoff };
  }
}

/**
 * What a vault's vectors are comparable with: the embedder's kind, its dimensions and, for a
 * service, its model (another model of the same service makes other vectors). Recorded in each
 * vault; a vault opened with another signature is embedded again.
 */
export function embedderSignature(cfg: { kind: EmbedderKind; dims: number; model?: string }): string {
  return cfg.kind === "http" ? `http/${cfg.model ?? ""}/${cfg.dims}` : `${cfg.kind}/${cfg.dims}`;
}

/**
 * Where an entry's vector is made on a write: the caller sends it (`client`), the writer computes
 * it at once (`hash`, `static`: microseconds, so the entry is found by vector as soon as it is
 * answered; `tiered`: the static tier's, upgraded later by the background embedder), or the
 * background embedder does after the write is answered (`local`, `http`: milliseconds to seconds,
 * and a service that may be down).
 */
export function vectorsOnWrite(kind: EmbedderKind): "caller" | "inline" | "background" {
  if (kind === "client") return "caller";
  return kind === "hash" || kind === "static" || kind === "tiered" ? "inline" : "background";
}

/**
 * The runtime's background embedder (src/compose/compose.ts). With `tiered` its batches only upgrade
 * vectors already searchable, so they yield to the requests `foreground` counts (upgrade-pacing.ts).
 */
export function backgroundEmbedder(
  embedder: Embedder,
  cfg: { model?: string; clock: Clock; log?: (line: string) => void; foreground?: ForegroundSignal },
): EmbedScheduler {
  const tiered = embedder.kind === "tiered";
  return new EmbedScheduler({
    embedder,
    signature: embedderSignature({ kind: embedder.kind, dims: embedder.dims, model: cfg.model }),
    clock: cfg.clock,
    limits: limitsFor(embedder.kind),
    log: cfg.log,
    fastVector: tiered ? staticVectors() : undefined,
    pacing: tiered && cfg.foreground ? new UpgradePacing(cfg.clock, cfg.foreground) : undefined,
  });
}

/** The static table's vectors, synchronous (its own word cache; the table is the process's one). */
function staticVectors(): (text: string) => Float32Array {
  const table = new StaticEmbedder();
  return (text) => table.embedSync(text);
}
