/**
 * The model extractor's configuration (docs/conversations.md#a-model-extractor), read once from
 * the environment by src/config/config.ts. `deterministic` (the default): only the rules extractor, on
 * the acknowledgement path. `http`: the rules extractor still writes at once, and each call's new
 * turns are queued for an OpenAI-compatible chat completions endpoint, whose entries follow.
 */
import type { SettingReaders } from "../../search/controls/rerank/rerank-settings.ts";

export const EXTRACTOR_KINDS = ["deterministic", "http"] as const;
export type ExtractorKind = (typeof EXTRACTOR_KINDS)[number];

export interface ExtractorSettings {
  kind: ExtractorKind;
  /** `http`: the base URL, `/chat/completions` appended (`https://api.openai.com/v1`). */
  url?: string;
  model?: string;
  /** Sent as a bearer token; never logged, never in an answer, a queue record or a health report. */
  apiKey?: string;
  /** How long one model call may take before it counts as failed (and is retried later). */
  timeoutMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export function extractorSettingsOf(env: Env, read: SettingReaders): ExtractorSettings {
  const settings: ExtractorSettings = {
    kind: read.oneOf(env, "MEMORY_RUNTIME_EXTRACTOR", EXTRACTOR_KINDS, "deterministic"),
    url: env.MEMORY_RUNTIME_EXTRACTOR_URL || undefined,
    model: env.MEMORY_RUNTIME_EXTRACTOR_MODEL || undefined,
    apiKey: env.MEMORY_RUNTIME_EXTRACTOR_KEY || undefined,
    timeoutMs: read.integer(env, "MEMORY_RUNTIME_EXTRACTOR_TIMEOUT_MS", 60_000, 100, 600_000),
  };
  if (settings.kind === "http" && !settings.url)
    read.refuse("MEMORY_RUNTIME_EXTRACTOR=http needs MEMORY_RUNTIME_EXTRACTOR_URL");
  if (settings.kind === "http" && !settings.model)
    read.refuse(
      "MEMORY_RUNTIME_EXTRACTOR=http needs MEMORY_RUNTIME_EXTRACTOR_MODEL (named in what it writes)",
    );
  if (settings.url && !/^https?:\/\//i.test(settings.url))
    read.refuse("MEMORY_RUNTIME_EXTRACTOR_URL must be an http:// or https:// URL");
  return settings;
}
