import type { Telemetry } from "../../../telemetry/telemetry.ts";
import { HttpReranker } from "./http-reranker.ts";
import type { RerankSearchDeps } from "./rerank-search.ts";
import type { RerankSettings } from "./rerank-settings.ts";
import type { Reranker } from "./reranker.ts";

/** The configured re-ranker, or none (`MEMORY_RUNTIME_RERANKER` unset or `off`). */
export function configuredReranker(
  settings: RerankSettings,
  deps: { fetch?: typeof fetch } = {},
): Reranker | undefined {
  const { kind, top, budgetMs, url } = settings;
  if (kind === "builtin") return { by: "builtin", top, budgetMs };
  if (kind === "http" && url) return new HttpReranker({ ...settings, url, fetch: deps.fetch });
  return undefined;
}

/** The re-ranking stage of memory search (src/search/service.ts): the re-ranker, its counter, its log. */
export function rerankStage(
  settings: RerankSettings,
  deps: { telemetry: Telemetry; log: (line: string) => void; fetch?: typeof fetch },
): Omit<RerankSearchDeps, "clock"> {
  const reranks = deps.telemetry.metrics.reranks;
  return {
    reranker: configuredReranker(settings, deps),
    count: (by, outcome) => reranks.inc({ reranker: by, outcome }),
    log: deps.log,
  };
}
