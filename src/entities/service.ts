/**
 * `GET /memory/entities/{name}` and MCP's `memory_entity`: what the tenant knows about an entity
 * (docs/entities.md), with the permissions of `GET /memory/{category}`: a caller reads the
 * entries of the categories its roles may read (`memory:read[:<category>]`) and no others; with
 * none it is refused (403, recorded). The operator has no memory.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { allowedCategories } from "../auth/permissions.ts";
import { timeParam } from "../memory/time-param.ts";
import type { EntityAnswer } from "../models/entities.ts";
import { scopeFilterOf } from "../models/scope.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";

/** The query as received (validated by its schema). */
export interface EntityRequest {
  valid_at?: string;
  as_of?: string;
  limit?: number;
}

export interface EntityServiceDeps {
  guard: Guard;
  clock: Clock;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
}

export class EntityService {
  constructor(private readonly deps: EntityServiceDeps) {}

  /** The entity's relationships and entries at `valid_at` / `as_of` (now by default). */
  read(caller: Caller, name: string, query: EntityRequest): Promise<EntityAnswer> {
    const { guard, clock } = this.deps;
    const { principal, req } = caller;
    const now = clock.now();
    const validAt = timeParam(query.valid_at, "valid_at", now);
    const asOf = timeParam(query.as_of, "as_of", now);
    if (principal.admin)
      throw guard.deny(principal, req, "memory:read", "the operator has no memory: use a tenant token");
    const categories = allowedCategories(guard.permissionsOf(principal), "read");
    if (categories.length === 0)
      throw guard.denyUngranted(principal, req, "memory:read", "no role grants memory:read");
    const { limit = 20 } = query;
    const scope = scopeFilterOf({}, principal.reach);
    return this.deps
      .tenant(principal.tenantId)
      .ask({ type: "entity.read", name, categories, validAt, asOf, limit, scope });
  }
}
