/**
 * `POST /memory/context` and MCP's `memory_context`: a search made through `SearchService` (so the
 * token's permissions, category narrowing, scopes and reach are exactly the search's), packed into
 * the budget (pack.ts). The search goes as deep as the budget could use: a first page sized to the
 * budget, and the search's largest page when the first was spent and left room for another block.
 */
import type { Caller } from "../auth/caller.ts";
import type { SearchBody } from "../models/search.ts";
import type { SearchService } from "../search/service.ts";
import { CONTEXT_ENCODING, type ContextBody, type ContextResponse } from "./model.ts";
import { packResults } from "./pack.ts";

/** The search's largest page (SearchBody's `limit`). */
const MAX_RESULTS = 100;
/** About the fewest tokens an entry's block takes (label and quote): a page of budget / this is enough. */
const MIN_BLOCK_TOKENS = 30;

export interface ContextServiceDeps {
  /** The search the pack is filled from: its permissions are the pack's. */
  search: Pick<SearchService, "search">;
}

export class ContextService {
  constructor(private readonly deps: ContextServiceDeps) {}

  pack(caller: Caller, body: ContextBody): Promise<ContextResponse> {
    return contextPack(this.deps.search, caller, body);
  }
}

async function contextPack(
  search: Pick<SearchService, "search">,
  caller: Caller,
  body: ContextBody,
): Promise<ContextResponse> {
  const { budget_tokens: budget, ...filters } = body;
  const first = Math.min(MAX_RESULTS, Math.max(10, Math.ceil(budget / MIN_BLOCK_TOKENS)));
  let results = (await search.search(caller, { ...filters, limit: first } as SearchBody)).results;
  let pack = packResults(results, budget);
  const room = budget - pack.tokens >= MIN_BLOCK_TOKENS;
  if (results.length === first && first < MAX_RESULTS && (!pack.truncated || room)) {
    results = (await search.search(caller, { ...filters, limit: MAX_RESULTS } as SearchBody)).results;
    pack = packResults(results, budget);
  }
  // A full largest page that all fit: more may match than a pack holds.
  const capped = results.length === MAX_RESULTS && pack.entries.length === MAX_RESULTS;
  return {
    ...pack,
    truncated: pack.truncated || capped,
    encoding: CONTEXT_ENCODING,
    budget_tokens: budget,
    considered: results.length,
  };
}
