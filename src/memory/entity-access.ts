/**
 * `GET /memory/entities/{name}` and MCP's `memory_entity`: what the tenant knows about an entity
 * (docs/entities.md), with the permissions of `GET /memory/{category}`: a caller reads the
 * entries of the categories its roles may read (`memory:read[:<category>]`) and no others; with
 * none it is refused (403, recorded). The operator has no memory.
 */
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { allowedCategories } from "../auth/permissions.ts";
import type { EntityAnswer } from "../models/entities.ts";
import { scopeFilterOf } from "../models/scope.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";

/** The query as received (validated by its schema). */
export interface EntityRequest {
  valid_at?: string;
  as_of?: string;
  limit?: number;
}

export interface EntityAccessDeps {
  guard: Guard;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
}

/** `at`: the query's times read already (access.ts `timeParam`: now by default). */
export async function readEntity(
  deps: EntityAccessDeps,
  caller: Caller,
  name: string,
  at: { validAt: number; asOf: number; limit?: number },
): Promise<EntityAnswer> {
  const { principal, req } = caller;
  if (principal.admin)
    throw deps.guard.deny(principal, req, "memory:read", "the operator has no memory: use a tenant token");
  const categories = allowedCategories(deps.guard.permissionsOf(principal), "read");
  if (categories.length === 0)
    throw deps.guard.denyUngranted(principal, req, "memory:read", "no role grants memory:read");
  const { validAt, asOf, limit = 20 } = at;
  const scope = scopeFilterOf({}, principal.reach);
  return deps
    .tenant(principal.tenantId)
    .ask({ type: "entity.read", name, categories, validAt, asOf, limit, scope });
}
