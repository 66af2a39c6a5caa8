import { requestIdOf } from "../http/request-id.ts";
import type { ReplayAsked } from "./service.ts";

/** A replay or discard of `letter`, asked in the request of a route's context (its tenant, principal, id). */
export function letterAskedIn(
  ctx: { tenant: { tenant_id: string }; principal: { sub: string }; request: Request },
  letter: { eventId: string; source?: string },
): ReplayAsked {
  return {
    tenantId: ctx.tenant.tenant_id,
    ...letter,
    sub: ctx.principal.sub,
    requestId: requestIdOf(ctx.request),
  };
}
