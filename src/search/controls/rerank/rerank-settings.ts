/**
 * The re-ranking stage's configuration (docs/operations.md#re-ranking), read once from the
 * environment by src/config/config.ts. Off by default: a search then ranks exactly as without it.
 */
import { RERANKERS, type RerankerKind } from "../../../models/rerank.ts";

export type RerankApi = "cohere" | "tei";

export interface RerankSettings {
  /** Undefined: off. */
  kind?: RerankerKind;
  /** How many of the fused hits are re-ranked (the rest keep their place after them). */
  top: number;
  /** How long the `http` re-ranker may take before the search answers in the fused order. */
  budgetMs: number;
  /** `http`: the service's base URL, `/rerank` appended. */
  url?: string;
  model?: string;
  /** Sent as a bearer token; never logged, never in an answer or a health report. */
  apiKey?: string;
  /** The request's shape: `documents` (Cohere, Jina, vLLM, Infinity) or `texts` (Hugging Face TEI). */
  api: RerankApi;
}

export const DEFAULT_RERANK_TOP = 30;
export const DEFAULT_RERANK_BUDGET_MS = 300;
const MAX_RERANK_TOP = 200;
const MAX_RERANK_BUDGET_MS = 60_000;

type Env = Readonly<Record<string, string | undefined>>;

/** How src/config/config.ts reads and refuses a variable (its ConfigError), so every setting reads alike. */
export interface SettingReaders {
  integer(env: Env, name: string, fallback: number, min: number, max: number): number;
  oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T;
  refuse(message: string): never;
}

export function rerankSettingsOf(env: Env, read: SettingReaders): RerankSettings {
  const { integer, oneOf } = read;
  const kind = oneOf(env, "MEMORY_RUNTIME_RERANKER", ["off", ...RERANKERS], "off");
  const settings: RerankSettings = {
    kind: kind === "off" ? undefined : kind,
    top: integer(env, "MEMORY_RUNTIME_RERANK_TOP", DEFAULT_RERANK_TOP, 2, MAX_RERANK_TOP),
    budgetMs: integer(
      env,
      "MEMORY_RUNTIME_RERANK_BUDGET_MS",
      DEFAULT_RERANK_BUDGET_MS,
      1,
      MAX_RERANK_BUDGET_MS,
    ),
    url: env.MEMORY_RUNTIME_RERANK_URL || undefined,
    model: env.MEMORY_RUNTIME_RERANK_MODEL || undefined,
    apiKey: env.MEMORY_RUNTIME_RERANK_KEY || undefined,
    api: oneOf(env, "MEMORY_RUNTIME_RERANK_API", ["cohere", "tei"], "cohere"),
  };
  if (settings.kind === "http" && !settings.url)
    read.refuse("MEMORY_RUNTIME_RERANKER=http needs MEMORY_RUNTIME_RERANK_URL");
  if (settings.url && !/^https?:\/\//i.test(settings.url))
    read.refuse("MEMORY_RUNTIME_RERANK_URL must be an http:// or https:// URL");
  return settings;
}
