import { ClientEmbedder } from "./client-embedder.ts";
import type { Embedder, EmbedderKind } from "./embedder.ts";
import { HashEmbedder } from "./hash-embedder.ts";
import { HttpEmbedder } from "./http-embedder.ts";

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
}

export function createEmbedder(cfg: EmbedderConfig): Embedder {
  switch (cfg.kind) {
    case "hash":
      return new HashEmbedder(cfg.dims);
    case "client":
      return new ClientEmbedder(cfg.dims);
    case "http":
      if (!cfg.url) throw new Error("the http embedder needs a url");
      return new HttpEmbedder({ ...cfg, url: cfg.url });
  }
}
