/**
 * A search through the re-ranking stage (src/search/service.ts hands its tenant message here).
 * Without a re-ranker, without text, or with `rerank: false`, the message goes as it is. The
 * built-in re-ranker is one ask (the tenant's search scores its own top). A service is three
 * steps: the tenant's top `top` candidates, the service's scores within the budget, and the
 * search again with those scores, or, when the service failed, with the reason: the answer is then
 * the fused order, 200, with `explain.rerank.fallback`, and the failure counted and logged.
 */
import type { RerankFallback } from "../../../models/rerank.ts";
import type { SearchEntries, SearchResult } from "../../../protocols/tenant-protocol.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { queryText } from "../../query-analysis.ts";
import { type Reranker, RerankFailed, type ServiceReranker } from "./reranker.ts";

export interface SearchReply {
  results: SearchResult[];
  pending_vectors?: number;
}

export interface RerankSearchDeps {
  reranker?: Reranker;
  /** Times the service's budget (a test's ManualClock fires it by hand). */
  clock: Clock;
  /** Counts each re-ranking by re-ranker and outcome (`ok` or the fallback's reason). */
  count?: (by: Reranker["by"], outcome: "ok" | RerankFallback) => void;
  /** A failure's cause (never the key: http-reranker.ts redacts it). */
  log?: (line: string) => void;
}

export async function rerankedSearch(
  msg: SearchEntries,
  wanted: boolean | undefined,
  ask: (msg: SearchEntries) => Promise<SearchReply>,
  deps: RerankSearchDeps,
): Promise<SearchReply> {
  const { reranker } = deps;
  const text = queryText(msg.text);
  if (!reranker || wanted === false || !text) return ask(msg);
  const { top } = reranker;
  if (reranker.by === "builtin") {
    const reply = await ask({ ...msg, rerank: { by: "builtin", top } });
    deps.count?.("builtin", "ok");
    return reply;
  }
  const { results } = await ask({ ...msg, rerank: { by: "http", top, collect: true } });
  // Nothing to order: the plain search answers (its page controls applied).
  if (results.length < 2) return ask(msg);
  // The service scores the query without its surrounding white space.
  const scored = await scoresOf(reranker, text.trim(), results, deps);
  deps.count?.("http", "scores" in scored ? "ok" : scored.fallback);
  return ask({ ...msg, rerank: { by: "http", top, ...scored } });
}

async function scoresOf(
  reranker: ServiceReranker,
  query: string,
  results: readonly SearchResult[],
  deps: RerankSearchDeps,
): Promise<{ scores: Record<string, number> } | { fallback: RerankFallback }> {
  const documents = results.map((r) => ({ id: r.entry.id, text: r.entry.content }));
  const budget = new AbortController();
  const timer = deps.clock.setTimeout(() => budget.abort(), reranker.budgetMs);
  try {
    const scores = await reranker.score(query, documents, budget.signal);
    return { scores: Object.fromEntries(documents.map((d, i) => [d.id, scores[i]!])) };
  } catch (error) {
    const reason =
      error instanceof RerankFailed ? error.reason : budget.signal.aborted ? "timeout" : "unreachable";
    deps.log?.(
      `[rerank] fell back to the fused order (${reason}): ${error instanceof Error ? error.message : String(error)}`,
    );
    return { fallback: reason };
  } finally {
    timer.cancel();
  }
}
