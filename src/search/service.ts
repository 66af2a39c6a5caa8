/**
 * `POST /memory/search` and MCP's `memory_search`, the service side: the permissions (category
 * narrowing, the operator refused), the query vector, the time parameters and the controls turned
 * into the tenant actor's message, asked through the re-ranking stage, timed by mode.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { refuseOperator } from "../auth/memory-tenant.ts";
import { allowedCategories } from "../auth/permissions.ts";
import { type Embedder, toVector } from "../embedding/embedder.ts";
import { timeParam } from "../memory/time-param.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import { scopeFilterOf } from "../models/scope.ts";
import type { SearchBody } from "../models/search.ts";
import { searchControlsOf } from "../models/search-controls.ts";
import type { SearchEntries, SearchResult, TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { type RerankSearchDeps, rerankedSearch } from "./controls/rerank/rerank-search.ts";
import { fusionProfile } from "./fusion/fusion-profile.ts";
import { queryText } from "./query-analysis.ts";

export interface SearchServiceDeps {
  guard: Guard;
  embedder: Embedder;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Times each search by mode (src/telemetry/); none in unit tests that need no metrics. */
  telemetry?: Pick<Telemetry, "time">;
  /** The re-ranking stage (src/search/controls/rerank/); none: searches rank by the fused score alone. */
  rerank?: Omit<RerankSearchDeps, "clock">;
}

export type SearchAnswer = { results: SearchResult[]; took_ms: number; pending_vectors?: number };

export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  search(caller: Caller, body: SearchBody): Promise<SearchAnswer> {
    return this.timed(body, () => {
      refuseOperator(this.deps.guard, caller, "memory:search");
      const categories = this.searchableCategories(caller, body.categories);
      return this.run(caller.principal.tenantId, categories, body, caller.principal.reach);
    });
  }

  /**
   * The operator's read of one tenant's memory, for the operator-only dashboard's search box: the
   * same search a tenant's token runs, over the categories asked (all six by default), with no
   * role narrowing and no subject reach, as the admin export reads a whole tenant. The one way the
   * operator searches memory: `search` refuses the operator's token, and this method is reached
   * only from a route that required it (`auth: admin`); its callers say whose search it is.
   */
  searchAsOperator(tenantId: string, body: SearchBody): Promise<SearchAnswer> {
    const categories = body.categories ? [...new Set(body.categories)] : [...CATEGORIES];
    return this.timed(body, () => this.run(tenantId, categories, body, undefined));
  }

  private timed(body: SearchBody, search: () => Promise<SearchAnswer>): Promise<SearchAnswer> {
    const telemetry = this.deps.telemetry;
    if (!telemetry) return search();
    return telemetry.time("search", [searchMode(body, this.deps.embedder.kind)], search);
  }

  private async run(
    tenantId: string,
    categories: Category[],
    body: SearchBody,
    reach: Caller["principal"]["reach"],
  ): Promise<SearchAnswer> {
    const started = performance.now();
    const now = this.deps.clock.now();
    const ask = (msg: SearchEntries) => this.deps.tenant(tenantId).ask({ type: "memory.search", ...msg });
    const rerank = { ...this.deps.rerank, clock: this.deps.clock };
    const search: SearchEntries = {
      text: body.query,
      vector: await this.queryVector(body),
      fusion: fusionProfile(this.deps.embedder.kind),
      categories,
      tags: body.tags ?? [],
      tagsAny: body.tags_any ?? [],
      status: body.status,
      minTrust: body.min_trust,
      scope: scopeFilterOf(body, reach),
      validAt: timeParam(body.valid_at, "valid_at", now),
      asOf: timeParam(body.as_of, "as_of", now),
      limit: body.limit ?? 10,
      controls: searchControlsOf(body),
    };
    const reply = await rerankedSearch(search, body.rerank, ask, rerank);
    const took_ms = Math.round((performance.now() - started) * 1000) / 1000;
    // Entries still waiting for their vector are found by their words only, until embedded.
    const pending = reply.pending_vectors === undefined ? {} : { pending_vectors: reply.pending_vectors };
    return { results: reply.results, took_ms, ...pending };
  }

  /**
   * Category narrowing: a role holding `memory:search:facts` searches facts only. Asking explicitly
   * for a category the roles do not cover is refused; the default (all six) is narrowed silently.
   */
  private searchableCategories(caller: Caller, requested: Category[] | undefined): Category[] {
    const { principal, req } = caller;
    const allowed = new Set(allowedCategories(this.deps.guard.permissionsOf(principal), "search"));
    if (allowed.size === 0)
      throw this.deps.guard.denyUngranted(principal, req, "memory:search", "no role grants memory:search");
    const wanted = requested ? [...new Set(requested)] : [...CATEGORIES];
    const refused = wanted.filter((c) => !allowed.has(c));
    if (requested && refused[0]) {
      const permission = `memory:search:${PLURAL_OF[refused[0]]}`;
      throw this.deps.guard.denyUngranted(
        principal,
        req,
        permission,
        "no role grants search on that category",
      );
    }
    return wanted.filter((c) => allowed.has(c));
  }

  /** The query vector: the caller's `embedding`, else the query text embedded (not for `client`). */
  private async queryVector(body: SearchBody): Promise<Float32Array | undefined> {
    if (body.embedding) return toVector(body.embedding, this.deps.embedder.dims);
    const text = queryText(body.query);
    if (!text || this.deps.embedder.kind === "client") return undefined;
    const [vec] = await this.deps.embedder.embed([text]);
    return vec;
  }
}

/** How a search finds entries, as the metrics label it: by words and vector, one of them, or neither. */
export function searchMode(
  body: SearchBody,
  embedder: Embedder["kind"],
): "hybrid" | "vector" | "lexical" | "recent" {
  const text = queryText(body.query) !== undefined;
  const vector = body.embedding !== undefined || (text && embedder !== "client");
  if (text) return vector ? "hybrid" : "lexical";
  return vector ? "vector" : "recent";
}
