/**
 * The discard of dead letters (docs/webhook-operations.md#discard), as
 * `POST /admin/webhooks/discard/{tenant_id}[/{event_id}]` and the dashboard's discard form do it:
 * the letters are kept, marked `discarded`, never replayed again, logged in the delivery log, and
 * recorded in the admin audit log.
 */
import { NotFound } from "../errors.ts";
import type { DiscardReply } from "../models/dead-letter.ts";
import type { BulkDiscardReply, BulkReplayFilter } from "../models/webhook-operations.ts";
import { filterDetails, MAX_EVENT_ID, type ReplayAsked } from "./dead-letter-replay.ts";
import type { Deps } from "./deps.ts";

export async function discardDeadLetter(deps: Deps, asked: ReplayAsked): Promise<DiscardReply> {
  const { tenantId, eventId } = asked;
  if (eventId.length < 1 || eventId.length > MAX_EVENT_ID) throw new NotFound("no such dead letter");
  const reply = await deps.webhooks.discard(
    tenantId,
    { eventId, source: asked.source },
    { by: asked.sub, requestId: asked.requestId ?? null },
  );
  await deps.audit({
    action: "deadletter.discarded",
    sub: asked.sub,
    tenant_id: tenantId,
    target: eventId,
    details: { source: reply.source, discarded_at: reply.discarded_at },
  });
  return reply;
}

export async function bulkDiscardDeadLetters(
  deps: Deps,
  asked: Omit<ReplayAsked, "eventId" | "source"> & { filter: BulkReplayFilter },
): Promise<BulkDiscardReply> {
  const { tenantId, filter } = asked;
  const by = { by: asked.sub, requestId: asked.requestId ?? null };
  const reply = await deps.webhooks.bulkDiscard(tenantId, filter, by);
  await deps.audit({
    action: "deadletter.bulk_discarded",
    sub: asked.sub,
    tenant_id: tenantId,
    target: null,
    details: { discarded: reply.discarded, ...filterDetails(filter) },
  });
  return reply;
}
