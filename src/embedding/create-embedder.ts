import type { Config } from "../config/config.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { ClientEmbedder } from "./client-embedder.ts";
import type { Embedder, EmbedderKind } from "./embedder.ts";
import { HashEmbedder } from "./hash-embedder.ts";
import { HttpEmbedder } from "./http-embedder.ts";
import { instrumentedEmbedder } from "./instrumented-embedder.ts";
import { LocalEmbedder } from "./local-embedder.ts";
import { type LocalModel, sharedLocalModel } from "./local-model.ts";
import { StaticEmbedder } from "./static-embedder.ts";
import { TieredEmbedder } from "./tiered-embedder.ts";
import { USE_LITE_DIMS } from "./use-lite.ts";

/**
 * The factory lives apart from the Embedder interface (embedder.ts): every implementation imports
 * that interface, so a factory beside it, importing every implementation, would close a cycle.
 */
export interface EmbedderConfig {
  kind: EmbedderKind;
  dims: number;
  url?: string;
  model?: string;
  apiKey?: string;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Per-request timeout of the http embedder, default 30 s. */
  timeoutMs?: number;
  /** The local and tiered embedders' model; default: the process's shared one, loaded on first use (tests pass a fake). */
  localModel?: LocalModel;
  /** Times each call and traces it (src/embedding/instrumented-embedder.ts). */
  telemetry?: Telemetry;
}

/** The runtime's embedder, as its configuration names it (src/compose/compose.ts). */
export function configuredEmbedder(
  config: Pick<
    Config,
    "embedder" | "embeddingDims" | "embeddingsUrl" | "embeddingsModel" | "embeddingsApiKey"
  >,
  parts: Pick<EmbedderConfig, "telemetry" | "localModel">,
): Embedder {
  const { embeddingsUrl: url, embeddingsModel: model, embeddingsApiKey: apiKey } = config;
  return createEmbedder({ kind: config.embedder, dims: config.embeddingDims, url, model, apiKey, ...parts });
}

export function createEmbedder(cfg: EmbedderConfig): Embedder {
  const embedder = embedderOf(cfg);
  return cfg.telemetry ? instrumentedEmbedder(embedder, cfg.telemetry) : embedder;
}

function embedderOf(cfg: EmbedderConfig): Embedder {
  switch (cfg.kind) {
    case "hash":
      return new HashEmbedder(cfg.dims);
    case "client":
      return new ClientEmbedder(cfg.dims);
    case "http":
      if (!cfg.url) throw new Error("the http embedder needs a url");
      return new HttpEmbedder({ ...cfg, url: cfg.url });
    // The config refuses other dims with a message for the operator; these guard other callers.
    // The static table is distilled into the local model's space, so its length is the model's.
    case "local":
      modelDims(cfg);
      return new LocalEmbedder(cfg.localModel ?? sharedLocalModel());
    case "static":
      modelDims(cfg);
      return new StaticEmbedder();
    case "tiered":
      modelDims(cfg);
      return new TieredEmbedder(
        new StaticEmbedder(),
        new LocalEmbedder(cfg.localModel ?? sharedLocalModel()),
      );
  }
}

/** Refuses dims other than the sentence model's (USE-lite's), naming the embedder asked for. */
function modelDims(cfg: EmbedderConfig): void {
  if (cfg.dims !== USE_LITE_DIMS)
    throw new Error(`the ${cfg.kind} embedder's vectors have ${USE_LITE_DIMS} dims, not ${cfg.dims}`);
}
