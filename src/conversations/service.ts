/**
 * What a caller may do with conversations, and doing it, for the HTTP route and the MCP tool alike:
 * the permissions (writing facts, and each category the extractor writes; reading facts), the plan
 * (plan.ts), the vectors, then one ask of the tenant actor. Refusals are denials, recorded.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { memoryTenant } from "../auth/memory-tenant.ts";
import { memoryPermission } from "../auth/permissions.ts";
import { scopedBodies } from "../auth/subject-scope.ts";
import { vectorsOnWrite } from "../embedding/background-embedder.ts";
import type { Embedder } from "../embedding/embedder.ts";
import { decodeCursor, encodeCursor } from "../memory/cursor.ts";
import type { Category } from "../models/category.ts";
import type { ConversationInput, ConversationReply, SessionTurns } from "../models/conversation.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import { auditedTrust, writerStamp } from "../provenance/trust-denial.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import { deterministicExtractor } from "./extract/deterministic.ts";
import type { Extractor } from "./extract/types.ts";
import { planConversation } from "./plan.ts";

export interface ConversationServiceDeps {
  guard: Guard;
  embedder: Embedder;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** The extractor (default: the deterministic one). */
  extractor?: Extractor;
}

export class ConversationService {
  private readonly extractor: Extractor;

  constructor(private readonly deps: ConversationServiceDeps) {
    this.extractor = deps.extractor ?? deterministicExtractor;
  }

  /** Writes a call's new turns and their extracted entries (201), or nothing new (200); `dry_run` writes nothing. */
  async add(
    caller: Caller,
    given: ConversationInput,
  ): Promise<{ status: 200 | 201; body: ConversationReply }> {
    const { guard } = this.deps;
    const permission = memoryPermission("write", "fact");
    const tenantId = this.tenantFor(caller, permission);
    // A subject-restricted token writes its own subject's conversations only (403 naming `subject`).
    const [body] = scopedBodies(guard, caller, "fact", [given], permission) as [ConversationInput];
    const plan = planConversation(body, this.deps.clock.now(), this.extractor);
    const categories = new Set<Category>(plan.extracted.map((x) => x.category));
    for (const category of categories)
      guard.require(caller.principal, memoryPermission("write", category), caller.req);
    const vectors = await this.vectors([
      ...plan.turns.map((t) => t.draft.content),
      ...plan.extracted.map((x) => x.content),
    ]);
    return auditedTrust(guard, caller, () =>
      this.deps.tenant(tenantId).ask({
        type: "conversation.add",
        plan,
        subject: body.subject,
        agentId: body.agent_id,
        createdBy: caller.principal.sub,
        turnVectors: vectors.slice(0, plan.turns.length),
        extractedVectors: vectors.slice(plan.turns.length),
        dryRun: body.dry_run === true,
        within: caller.principal.reach,
        ...writerStamp(guard, caller),
      }),
    );
  }

  /**
   * The session's turns in order, a page at a time (an unknown session has none). A session is
   * named within its subject: `subject` (a subject-restricted token: its own) picks whose.
   */
  async turns(
    caller: Caller,
    sessionId: string,
    query: { limit?: number; cursor?: string; subject?: string },
  ): Promise<SessionTurns> {
    const tenantId = this.tenantFor(caller, memoryPermission("read", "fact"));
    const reach = caller.principal.reach;
    const subject = query.subject ?? reach?.subject;
    // Another subject's session is not there for a restricted token: no turns, as an unknown one.
    if (reach && subject !== reach.subject) return { session_id: sessionId, turns: [], next_cursor: null };
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = await this.deps.tenant(tenantId).ask({
      type: "conversation.turns",
      sessionId,
      subject,
      limit: query.limit ?? 100,
      after,
    });
    const next = page.more && page.last !== undefined ? encodeCursor(page.last) : null;
    return { session_id: page.session_id, turns: page.turns, next_cursor: next };
  }

  /** The caller's tenant (the operator has no memory), if it holds `permission` (403, recorded). */
  private tenantFor(caller: Caller, permission: string): string {
    return memoryTenant(this.deps.guard, caller, permission);
  }

  /**
   * Vectors made now where the embedder makes them inline (`hash`, `static`, `tiered`), none where
   * the background embedder makes them after the write, and none under `client`: a transcript
   * carries no vectors, so its entries are found by their words.
   */
  private async vectors(texts: string[]): Promise<Array<Float32Array | undefined>> {
    const kind = this.deps.embedder.kind;
    if (vectorsOnWrite(kind) !== "inline" || texts.length === 0) return texts.map(() => undefined);
    return this.deps.embedder.embed(texts);
  }
}
