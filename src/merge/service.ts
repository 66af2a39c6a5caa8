import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { refuseOperator } from "../auth/memory-tenant.ts";
import { allowedCategories, memoryPermission } from "../auth/permissions.ts";
import type { Category } from "../models/category.ts";
import type { MergeBody, MergeRecord, MergeReview, ReviewPage } from "../models/merge.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";

export interface MergeServiceDeps {
  guard: Guard;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
}

/**
 * Who may merge (docs/memory.md, "Merging near-duplicates"): `memory:merge:<category>` merges,
 * un-merges and reviews that category's entries (a merge hides an entry from every reader, so it
 * is a permission of its own, not a write's); the operator has no memory. Refusals are recorded
 * before their 403. A subject-restricted token reaches its subject's entries only (404 otherwise).
 */
export class MergeService {
  constructor(private readonly deps: MergeServiceDeps) {}

  merge(caller: Caller, body: MergeBody): Promise<MergeRecord> {
    const tenant = this.tenantFor(caller, body.category);
    const { principal } = caller;
    return tenant.ask({ type: "merge.create", ...body, by: principal.sub, within: principal.reach });
  }

  async get(caller: Caller, id: string): Promise<MergeRecord> {
    const tenant = this.tenantFor(caller);
    const record = await tenant.ask({ type: "merge.get", id, within: caller.principal.reach });
    this.require(caller, record.category);
    return record;
  }

  async unmerge(caller: Caller, id: string): Promise<MergeRecord> {
    const record = await this.get(caller, id);
    const { principal } = caller;
    return this.tenantFor(caller, record.category).ask({
      type: "merge.undo",
      id,
      by: principal.sub,
      within: principal.reach,
    });
  }

  /** The pending reviews of the categories the caller may merge (none: 403). */
  reviews(caller: Caller, query: { limit?: number; cursor?: string }): Promise<ReviewPage> {
    const tenant = this.tenantFor(caller);
    const categories = allowedCategories(this.deps.guard.permissionsOf(caller.principal), "merge");
    if (categories.length === 0) this.require(caller);
    return tenant.ask({
      type: "merge.reviews",
      categories,
      limit: query.limit ?? 50,
      after: query.cursor,
      within: caller.principal.reach,
    });
  }

  async decide(
    caller: Caller,
    id: string,
    accept: boolean,
  ): Promise<{ review: MergeReview; merge?: MergeRecord }> {
    const tenant = this.tenantFor(caller);
    const within = caller.principal.reach;
    const review = await tenant.ask({ type: "merge.review.get", id, within });
    this.require(caller, review.category);
    return tenant.ask({ type: "merge.review.decide", id, accept, by: caller.principal.sub, within });
  }

  /** The caller's tenant actor; with a category, the permission to merge in it. */
  private tenantFor(caller: Caller, category?: Category): ActorRef<TenantProtocol> {
    refuseOperator(this.deps.guard, caller, memoryPermission("merge", category));
    if (category) this.require(caller, category);
    return this.deps.tenant(caller.principal.tenantId);
  }

  private require(caller: Caller, category?: Category): void {
    this.deps.guard.require(caller.principal, memoryPermission("merge", category), caller.req);
  }
}
