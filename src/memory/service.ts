/**
 * What a caller may do with memory entries, and doing it: the one place permissions, tenancy and
 * embedding decisions are applied to create, read, list, retract and read the history of entries,
 * for every way agents reach memory (the HTTP routes and the MCP tools). Refusals are denials
 * (recorded; the caller awaits the record before answering 403) and domain errors; everything else
 * is asked of the tenant actor. Search is src/search/service.ts, entities src/entities/service.ts.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { memoryTenant } from "../auth/memory-tenant.ts";
import { memoryPermission } from "../auth/permissions.ts";
import { changeable, reachable, scopedBodies } from "../auth/subject-scope.ts";
import { vectorsOnWrite } from "../embedding/background-embedder.ts";
import { type Embedder, toVector } from "../embedding/embedder.ts";
import { ValidationFailed } from "../errors/domain-errors.ts";
import type { Category } from "../models/category.ts";
import type { Entry, EntryDraft } from "../models/entry.ts";
import type { EntryHistory } from "../models/history.ts";
import type { Trust } from "../models/origin.ts";
import { type ScopeQuery, scopeFilterOf } from "../models/scope.ts";
import type { DedupeMode } from "../models/similar.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import { auditedTrust, writerStamp } from "../provenance/trust-denial.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import { similarAsk } from "./similar-ask.ts";
import { timeParam } from "./time-param.ts";

export interface MemoryServiceDeps {
  guard: Guard;
  embedder: Embedder;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
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

export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

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

  /** The tenant a memory call acts on: the token's own. The operator has no memory of its own. */
  private tenantFor(caller: Caller, permission: string): string {
    return memoryTenant(this.deps.guard, caller, permission);
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
}

/**
 * Whose `Idempotency-Key`s a write's is among: the token's `sub`, and for a subject-restricted
 * token its subject too, so two end users' sessions of one app (one `sub`) never share keys.
 */
function keyOwner(caller: Caller): string {
  const reach = caller.principal.reach;
  return reach ? `${caller.principal.sub}\u0001${reach.subject}` : caller.principal.sub;
}
