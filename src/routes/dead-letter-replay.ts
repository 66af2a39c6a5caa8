/**
 * The replay of one dead letter, as `POST /admin/webhooks/replay/{tenant_id}/{event_id}` and the
 * dashboard's replay form both do it: the stored payload mapped again by the ingest pipeline (no
 * second signature check), then recorded in the admin audit log.
 */
import { NotFound } from "../errors.ts";
import { requestIdOf } from "../http/request-id.ts";
import type { ReplayReply } from "../models/dead-letter.ts";
import type { BulkReplayFilter } from "../models/webhook-operations.ts";
import { SOURCE_IDS } from "../sources/registry.ts";
import type { Deps } from "./deps.ts";

/** Event ids come from sources and are clipped to 512 characters there; the lookup is an exact key match. */
export const MAX_EVENT_ID = 512;
/** The messaging bridge's dead letters are replayable too, though it has no webhook route. */
export const REPLAYABLE_SOURCES = [...SOURCE_IDS, "messaging"] as const;

export interface ReplayAsked {
  tenantId: string;
  eventId: string;
  /** Picks the dead letter when two sources used the same event id. */
  source?: string;
  /** Who asked (the audit log's `sub`). */
  sub: string;
  /** The request's X-Request-Id, for the delivery log. */
  requestId?: string;
}

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

export async function replayDeadLetter(deps: Deps, asked: ReplayAsked): Promise<ReplayReply> {
  const { tenantId, eventId } = asked;
  if (eventId.length < 1 || eventId.length > MAX_EVENT_ID) throw new NotFound("no such dead letter");
  const reply = await deps.ingest.replay(tenantId, eventId, asked.source, asked.requestId);
  await deps.audit({
    action: "deadletter.replayed",
    sub: asked.sub,
    tenant_id: tenantId,
    target: eventId,
    details: { status: reply.status, entries: reply.entries?.length ?? 0 },
  });
  return reply;
}

/** A bulk replay's or discard's filter, as its audit record keeps it (the cursor and limit left out). */
export function filterDetails(filter: BulkReplayFilter) {
  const { source, event_type, from, to } = filter;
  return { source, event_type, from, to };
}
