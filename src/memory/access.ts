/**
 * What a caller may do with memory, and doing it: the one place permissions, tenancy and embedding
 * decisions are applied to create, read, list and search, for every way agents reach memory (the
 * HTTP routes and the MCP tools). Refusals are denials (recorded; the caller awaits the record
 * before answering 403) and domain errors; everything else is asked of the tenant actor.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { memoryTenant, refuseOperator } from "../auth/memory-tenant.ts";
import { allowedCategories, memoryPermission } from "../auth/permissions.ts";
import { changeable, reachable, scopedBodies } from "../auth/subject-scope.ts";
import { vectorsOnWrite } from "../embedding/background-embedder.ts";
import { type Embedder, toVector } from "../embedding/embedder.ts";
import { ValidationFailed } from "../errors.ts";
import { CATEGORIES, type Category, PLURAL_OF } from "../models/category.ts";
import { parseTimestamp } from "../models/common.ts";
import type { EntityAnswer } from "../models/entities.ts";
import type { Entry, EntryDraft } from "../models/entry.ts";
import type { EntryHistory } from "../models/history.ts";
import type { Trust } from "../models/origin.ts";
import { type ScopeQuery, scopeFilterOf } from "../models/scope.ts";
import type { SearchBody } from "../models/search.ts";
import { searchControlsOf } from "../models/search-controls.ts";
import type { DedupeMode } from "../models/similar.ts";
import type { SearchEntries, SearchResult, TenantProtocol } from "../protocols/tenant-protocol.ts";
import { auditedTrust, writerStamp } from "../provenance/trust-denial.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import { type RerankSearchDeps, rerankedSearch } from "../search/controls/rerank/rerank-search.ts";
import { fusionProfile } from "../search/fusion/fusion-profile.ts";
import { queryText } from "../search/query-analysis.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { type EntityRequest, readEntity } from "./entity-access.ts";
import { similarAsk } from "./similar-ask.ts";

export interface MemoryAccessDeps {
  guard: Guard;
  embedder: Embedder;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Times each search by mode (src/telemetry/); none in unit tests that need no metrics. */
  telemetry?: Telemetry;
  /** The re-ranking stage (src/search/controls/rerank/); none: searches rank by the fused score alone. */
  rerank?: Omit<RerankSearchDeps, "clock">;
}

/** The query of a list, as received (validated by its schema). */
export interface ListRequest extends ScopeQuery {
  limit?: number;
  cursor?: string;
  tag?: string;
  valid_at?: string;
  as_of?: string;
  status?: "open" | "resolved";
  min_trust?: Trust;
  include?: "embedding";
}

export class MemoryAccess {
  constructor(private readonly deps: MemoryAccessDeps) {}

  /**
   * Writes an entry of `category`: 201 for a new one, 200 for an idempotent replay or identical content,
   * with the live near-duplicates it has (`similar`); `dedupe` answers one of those instead of writing.
   */
  async create(
    caller: Caller,
    category: Category,
    body: Record<string, unknown>,
    idempotencyKey?: string,
    dedupe?: DedupeMode,
  ): Promise<TenantProtocol["entry.create"]["reply"]> {
    const tenantId = this.writableTenant(caller, category, [body]);
    const { guard } = this.deps;
    const [scoped] = scopedBodies(guard, caller, category, [body], memoryPermission("write", category));
    const draft = { ...scoped, category } as EntryDraft;
    const [vector] = await this.entryVectors([draft]);
    return auditedTrust(guard, caller, () =>
      this.deps.tenant(tenantId).ask({
        type: "entry.create",
        draft,
        createdBy: caller.principal.sub,
        vector,
        idempotencyKey: idempotencyKey && `${keyOwner(caller)}\u0000${category}\u0000${idempotencyKey}`,
        similar: similarAsk(guard, this.deps.embedder.kind, caller, category, dedupe),
        within: caller.principal.reach,
        ...writerStamp(guard, caller),
      }),
    );
  }

  /**
   * Writes a batch of one category in one transaction: every item is checked before any is
   * written; the entries come back in order, each 201 (new) or 200 (identical content stored).
   */
  async createMany(
    caller: Caller,
    category: Category,
    bodies: Array<Record<string, unknown>>,
    idempotencyKey?: string,
  ): Promise<{ status: 200 | 201; entries: Entry[]; statuses: Array<200 | 201>; replayed?: true }> {
    const tenantId = this.writableTenant(caller, category, bodies);
    const permission = memoryPermission("write", category);
    const scoped = scopedBodies(this.deps.guard, caller, category, bodies, permission);
    const drafts = scoped.map((body) => ({ ...body, category }) as EntryDraft);
    const vectors = await this.entryVectors(drafts);
    return auditedTrust(this.deps.guard, caller, () =>
      this.deps.tenant(tenantId).ask({
        type: "entry.createMany",
        drafts,
        createdBy: caller.principal.sub,
        vectors,
        idempotencyKey: idempotencyKey && `${keyOwner(caller)}\u0000${category}/batch\u0000${idempotencyKey}`,
        within: caller.principal.reach,
        ...writerStamp(this.deps.guard, caller),
      }),
    );
  }

  /** The caller's tenant, if it may write `category` and no body names another tenant (403, audited). */
  private writableTenant(caller: Caller, category: Category, bodies: Array<Record<string, unknown>>): string {
    const permission = memoryPermission("write", category);
    const tenantId = this.tenantFor(caller, permission);
    if (bodies.some((body) => body.tenant_id !== undefined && body.tenant_id !== tenantId)) {
      throw this.deps.guard.deny(
        caller.principal,
        caller.req,
        permission,
        "a write into another tenant was attempted",
      );
    }
    return tenantId;
  }

  async get(caller: Caller, category: Category, id: string, includeEmbedding = false): Promise<Entry> {
    const tenantId = this.tenantFor(caller, memoryPermission("read", category));
    return reachable(
      caller,
      await this.deps.tenant(tenantId).ask({ type: "entry.get", category, id, includeEmbedding }),
    );
  }

  /** Retraction needs the permission to write that category (and to override an entry of higher trust). */
  async retract(caller: Caller, category: Category, id: string): Promise<Entry> {
    const permission = memoryPermission("write", category);
    const tenantId = this.tenantFor(caller, permission);
    // A subject-restricted token retracts its own subject's entries only (subject-scope.ts).
    if (caller.principal.reach)
      changeable(this.deps.guard, caller, await this.get(caller, category, id), permission);
    const { provenance, overrides } = writerStamp(this.deps.guard, caller);
    const by = caller.principal.sub;
    return auditedTrust(this.deps.guard, caller, () =>
      this.deps
        .tenant(tenantId)
        .ask({ type: "entry.retract", category, id, by, trust: provenance.trust, overrides }),
    );
  }

  async history(caller: Caller, category: Category, id: string): Promise<EntryHistory> {
    const tenantId = this.tenantFor(caller, memoryPermission("read", category));
    if (caller.principal.reach) await this.get(caller, category, id);
    return this.deps.tenant(tenantId).ask({ type: "entry.history", category, id });
  }

  async list(caller: Caller, category: Category, query: ListRequest) {
    const tenantId = this.tenantFor(caller, memoryPermission("read", category));
    const now = this.deps.clock.now();
    return this.deps.tenant(tenantId).ask({
      type: "entry.list",
      category,
      limit: query.limit ?? 50,
      cursor: query.cursor,
      tag: query.tag,
      validAt: timeParam(query.valid_at, "valid_at", now),
      asOf: timeParam(query.as_of, "as_of", now),
      status: query.status,
      minTrust: query.min_trust,
      scope: scopeFilterOf(query, caller.principal.reach),
      includeEmbedding: query.include === "embedding",
    });
  }

  /** What the tenant knows about an entity (entity-access.ts). */
  entity(caller: Caller, name: string, query: EntityRequest): Promise<EntityAnswer> {
    const now = this.deps.clock.now();
    const validAt = timeParam(query.valid_at, "valid_at", now);
    const asOf = timeParam(query.as_of, "as_of", now);
    return readEntity(this.deps, caller, name, { validAt, asOf, limit: query.limit });
  }

  search(caller: Caller, body: SearchBody): Promise<SearchAnswer> {
    const telemetry = this.deps.telemetry;
    if (!telemetry) return this.searchNow(caller, body);
    return telemetry.time("search", [searchMode(body, this.deps.embedder.kind)], () =>
      this.searchNow(caller, body),
    );
  }

  private async searchNow(caller: Caller, body: SearchBody): Promise<SearchAnswer> {
    const started = performance.now();
    const { principal } = caller;
    refuseOperator(this.deps.guard, caller, "memory:search");
    const categories = this.searchableCategories(caller, body.categories);
    const now = this.deps.clock.now();
    const ask = (msg: SearchEntries) =>
      this.deps.tenant(principal.tenantId).ask({ type: "memory.search", ...msg });
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
      scope: scopeFilterOf(body, principal.reach),
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

  /** The tenant a memory call acts on: the token's own. The operator has no memory of its own. */
  private tenantFor(caller: Caller, permission: string): string {
    return memoryTenant(this.deps.guard, caller, permission);
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

  /**
   * The entries' embeddings: the callers' (client embedder), computed from their contents in one
   * call (`hash`: microseconds), or none yet: the background embedder makes them after the write
   * is answered (`local`, `http`; src/embedding/background-embedder.ts). A refusal names the item
   * when there are several.
   */
  private async entryVectors(drafts: EntryDraft[]): Promise<Array<Float32Array | undefined>> {
    const embedder = this.deps.embedder;
    const at = (i: number) => (drafts.length > 1 ? `/entries/${i}/embedding` : "/embedding");
    if (embedder.kind === "client") {
      return drafts.map((draft, i) => {
        if (!draft.embedding)
          throw new ValidationFailed("this runtime's embedder is `client`: send `embedding`", [
            { path: at(i), message: "required" },
          ]);
        return toVector(draft.embedding, embedder.dims);
      });
    }
    const given = drafts.findIndex((draft) => draft.embedding);
    if (given >= 0) {
      throw new ValidationFailed("`embedding` is accepted only when the embedder is `client`", [
        { path: at(given), message: "not accepted" },
      ]);
    }
    if (vectorsOnWrite(embedder.kind) === "background") return drafts.map(() => undefined);
    return embedder.embed(drafts.map((draft) => draft.content));
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

/**
 * Whose `Idempotency-Key`s a write's is among: the token's `sub`, and for a subject-restricted
 * token its subject too, so two end users' sessions of one app (one `sub`) never share keys.
 */
function keyOwner(caller: Caller): string {
  const reach = caller.principal.reach;
  return reach ? `${caller.principal.sub}\u0001${reach.subject}` : caller.principal.sub;
}

type SearchAnswer = { results: SearchResult[]; took_ms: number; pending_vectors?: number };

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

/** A time parameter (`valid_at`, `as_of`): RFC 3339 (its schema checked the form), a real instant, default now. */
export function timeParam(value: string | undefined, name: string, now: number): number {
  if (value === undefined) return now;
  const ms = parseTimestamp(value);
  if (ms === undefined)
    throw new ValidationFailed(`${name} must be an RFC 3339 timestamp`, [
      { path: `/${name}`, message: "RFC 3339" },
    ]);
  return ms;
}
