/**
 * The audited webhook operations, as the admin routes and the dashboard's forms both do them: each
 * operation (src/webhooks/operations.ts, or the ingest pipeline's replay), then its record in the
 * admin audit log; the answer waits for the record.
 */
import { NotFound } from "../errors/domain-errors.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import type { DeadLetter, DiscardReply, ReplayReply } from "../models/dead-letter.ts";
import type {
  BulkDiscardReply,
  BulkReplayFilter,
  BulkReplayReply,
  SourceStatusReply,
} from "../models/webhook-operations.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";
import { MAX_EVENT_ID } from "./model.ts";
import { type DeliveryLogFilter, PAUSABLE_SOURCES, type WebhookOperations } from "./operations.ts";
import { unknownSource } from "./unknown-source.ts";

export interface WebhookServiceDeps {
  /** The tenant's actor: its dead letters are read there. */
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** The pipeline's replay of one dead letter (mapped again, no second signature check). */
  ingest: Pick<IngestPipeline, "replay">;
  webhooks: Pick<
    WebhookOperations,
    "pause" | "resume" | "sources" | "deliveries" | "bulkReplay" | "discard" | "bulkDiscard"
  >;
  audit: AdminAuditSink;
}

/** A replay or discard of one dead letter, and who asked. */
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

/** A bulk replay or discard: its filter, and who asked. */
export type BulkAsked = Omit<ReplayAsked, "eventId" | "source" | "requestId"> & {
  filter: BulkReplayFilter;
  requestId: string;
};

export interface SourceChange {
  tenantId: string;
  source: string;
  action: "pause" | "resume";
  /** Who asked (the audit log's `sub`). */
  sub: string;
  requestId: string | null;
}

function knownLetter(eventId: string): string {
  if (eventId.length < 1 || eventId.length > MAX_EVENT_ID) throw new NotFound("no such dead letter");
  return eventId;
}

/** The path's source, or a 404 (as on the webhook route: an unknown source is not found, not invalid). */
function knownSource(source: string): string {
  if (!PAUSABLE_SOURCES.includes(source)) throw unknownSource(source, PAUSABLE_SOURCES);
  return source;
}

/** A bulk replay's or discard's filter, as its audit record keeps it (the cursor and limit left out). */
function filterDetails(filter: BulkReplayFilter) {
  const { source, event_type, from, to } = filter;
  return { source, event_type, from, to };
}

export async function replayDeadLetter(deps: WebhookServiceDeps, asked: ReplayAsked): Promise<ReplayReply> {
  const { tenantId } = asked;
  const eventId = knownLetter(asked.eventId);
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

/** Kept, marked `discarded`, never replayed again (unknown 404, replayed 409), then audited. */
export async function discardDeadLetter(deps: WebhookServiceDeps, asked: ReplayAsked): Promise<DiscardReply> {
  const { tenantId } = asked;
  const eventId = knownLetter(asked.eventId);
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

/** A pause or a resume: the source checked (unknown: 404), the operation, then the audit. */
export async function changeSource(
  deps: WebhookServiceDeps,
  asked: SourceChange,
): Promise<SourceStatusReply> {
  const { tenantId, action, sub } = asked;
  const source = knownSource(asked.source);
  const reply =
    action === "pause"
      ? await deps.webhooks.pause(tenantId, source)
      : await deps.webhooks.resume(tenantId, source, asked.requestId);
  const details = action === "pause" ? { held: reply.held } : { status: reply.status, held: reply.held };
  const event = action === "pause" ? "webhook_source.paused" : "webhook_source.resumed";
  await deps.audit({ action: event, sub, tenant_id: tenantId, target: source, details });
  return reply;
}

/** What the admin webhook routes call: the operations above and the reads beside them. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  deadLetters(
    tenantId: string,
    status: DeadLetter["status"] | undefined,
    limit: number,
  ): Promise<DeadLetter[]> {
    return this.deps.tenant(tenantId).ask({ type: "deadletter.list", status, limit });
  }

  replay(asked: ReplayAsked): Promise<ReplayReply> {
    return replayDeadLetter(this.deps, asked);
  }

  async bulkReplay(asked: BulkAsked): Promise<BulkReplayReply> {
    const { tenantId, filter } = asked;
    const reply = await this.deps.webhooks.bulkReplay(tenantId, filter, asked.requestId);
    await this.deps.audit({
      action: "deadletter.bulk_replayed",
      sub: asked.sub,
      tenant_id: tenantId,
      target: null,
      details: { replayed: reply.replayed, dead: reply.dead, ...filterDetails(filter) },
    });
    return reply;
  }

  discard(asked: ReplayAsked): Promise<DiscardReply> {
    return discardDeadLetter(this.deps, asked);
  }

  async bulkDiscard(asked: BulkAsked): Promise<BulkDiscardReply> {
    const { tenantId, filter } = asked;
    const by = { by: asked.sub, requestId: asked.requestId };
    const reply = await this.deps.webhooks.bulkDiscard(tenantId, filter, by);
    await this.deps.audit({
      action: "deadletter.bulk_discarded",
      sub: asked.sub,
      tenant_id: tenantId,
      target: null,
      details: { discarded: reply.discarded, ...filterDetails(filter) },
    });
    return reply;
  }

  changeSource(asked: SourceChange): Promise<SourceStatusReply> {
    return changeSource(this.deps, asked);
  }

  sources(tenantId: string) {
    return this.deps.webhooks.sources(tenantId);
  }

  deliveries(tenantId: string, filter: DeliveryLogFilter) {
    return this.deps.webhooks.deliveries(tenantId, filter);
  }
}
