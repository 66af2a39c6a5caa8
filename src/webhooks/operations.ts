/**
 * The webhook operations' service (docs/webhook-operations.md): what the admin routes and the
 * upkeep ask of a tenant — pause, resume (releasing the held events one by one, in arrival order),
 * the sources' states, the delivery log, bulk replay, discard. Mapping stays in the ingest pipeline and
 * every write in the tenant actor, whose mailbox serialises them with the deliveries.
 */
import { Conflict, NotFound, ValidationFailed } from "../errors/domain-errors.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import type { WebhookFigures } from "../ingest/webhook-figures.ts";
import { isoOf, parseTimestamp } from "../models/common.ts";
import type { DeadLetter, DiscardReply } from "../models/dead-letter.ts";
import type {
  BulkDiscardReply,
  BulkReplayFilter,
  BulkReplayReply,
  BulkReplayResult,
  DeliveryOutcome,
  SourceStatusReply,
  SourceView,
} from "../models/webhook-operations.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type {
  DeadLetterSelection,
  DiscardAsked,
  LetterPosition,
  PurgeReport,
} from "../protocols/webhook-ops-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import { messagingSource } from "../sources/messaging.ts";
import { SOURCE_IDS } from "../sources/registry.ts";

/** Every source a tenant's events come from: the 22 webhook sources and the messaging bridge. */
export const PAUSABLE_SOURCES: readonly string[] = [...SOURCE_IDS, messagingSource.id];

export interface WebhookOperationsDeps {
  ingest: IngestPipeline;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Every source a tenant's events come from (the webhook sources and messaging), listed in this order. */
  sources: readonly string[];
}

export interface DeliveryLogFilter {
  source?: string;
  event_id?: string;
  outcome?: DeliveryOutcome;
  from?: string;
  to?: string;
  limit: number;
  cursor?: string;
}

/** A resume handed the event it just released again would loop: a bug, stopped rather than spun. */
const SAME_EVENT_TWICE = "a resume was handed the same held event twice: stopped, nothing applied twice";

export class WebhookOperations {
  /** Resumes running in this process, by tenant and source: a second request joins the first. */
  private readonly resumes = new Map<string, Promise<SourceStatusReply>>();

  constructor(private readonly deps: WebhookOperationsDeps) {}

  async pause(tenantId: string, source: string): Promise<SourceStatusReply> {
    const reply = await this.deps.tenant(tenantId).ask({ type: "source.pause", source });
    this.figures.changed(source, "paused");
    this.figures.set(tenantId, source, { paused: true, held: reply.held });
    return { source, ...reply };
  }

  /**
   * Releases the source's held events in arrival order, each applied and released in one write,
   * then answers once none is left (the source active) or it was paused again meanwhile. Events
   * arriving meanwhile are held and released in their turn.
   */
  resume(tenantId: string, source: string, requestId: string | null): Promise<SourceStatusReply> {
    const key = `${tenantId}\u0000${source}`;
    const running = this.resumes.get(key);
    if (running) return running;
    this.figures.changed(source, "resumed");
    const run = this.release(tenantId, source, requestId)
      .then((reply) => {
        this.figures.set(tenantId, source, { paused: reply.status === "paused", held: reply.held });
        return reply;
      })
      .finally(() => this.resumes.delete(key));
    this.resumes.set(key, run);
    return run;
  }

  /** Every source as a tenant that never paused one has them (a vault not made yet: nothing to ask). */
  idle(): SourceView[] {
    const idle = { status: "active" as const, resuming: false, held: 0, dead_letters: 0, changed_at: null };
    return this.deps.sources.map((source) => ({ source, ...idle }));
  }

  /** Every source, its pause state and what the tenant holds of it. */
  async sources(tenantId: string): Promise<SourceView[]> {
    const figures = await this.deps.tenant(tenantId).ask({ type: "sources.figures" });
    const views: SourceView[] = this.deps.sources.map((source) => {
      const f = figures[source];
      return {
        source,
        status: f?.state?.status ?? "active",
        resuming: f?.state?.resuming ?? false,
        held: f?.held ?? 0,
        dead_letters: f?.dead_letters ?? 0,
        changed_at: f?.state ? isoOf(f.state.changed_at) : null,
      };
    });
    this.figures.setAll(
      tenantId,
      views.map((v) => ({ ...v, paused: v.status === "paused" })),
    );
    return views;
  }

  /** What the upkeep's purge of a tenant said: its sources' state and what retention removed. */
  observed(tenantId: string, report: PurgeReport): void {
    this.figures.setAll(tenantId, report.sources);
    this.figures.purgedRecords("delivery_log", report.delivery_log);
    this.figures.purgedRecords("dead_letter", report.dead_letters);
  }

  /** The node's figures (src/ingest/webhook-figures.ts). */
  get figures(): WebhookFigures {
    return this.deps.ingest.figures;
  }

  async deliveries(tenantId: string, filter: DeliveryLogFilter) {
    const { from, to } = window(filter.from, filter.to);
    const { source, event_id, outcome, limit, cursor } = filter;
    return this.deps.tenant(tenantId).ask({
      type: "deliveries.page",
      ...{ source, event_id, outcome, from, to, limit, cursor },
    });
  }

  /**
   * Replays every dead letter still dead that matches, in arrival order, one at a time through the
   * single replay's path (so a concurrent single replay of the same letter writes once: the tenant
   * actor resolves a letter only while it is dead).
   */
  async bulkReplay(tenantId: string, filter: BulkReplayFilter, requestId: string): Promise<BulkReplayReply> {
    const { letters, more } = await this.deps.tenant(tenantId).ask({
      type: "deadletter.select",
      ...selectionOf(filter),
    });
    const results: BulkReplayResult[] = [];
    for (const letter of letters) {
      const result = await this.replayOne(tenantId, letter, requestId);
      if (result) results.push(result);
    }
    return {
      results,
      replayed: results.filter((r) => r.status === "replayed").length,
      dead: results.filter((r) => r.status === "dead").length,
      next_cursor: nextCursor(letters[letters.length - 1], more),
    };
  }

  /** Discards one dead letter (docs/webhook-operations.md#discard): unknown 404, replayed 409. */
  async discard(
    tenantId: string,
    letter: { eventId: string; source?: string },
    asked: DiscardAsked,
  ): Promise<DiscardReply> {
    const reply = await this.deps.tenant(tenantId).ask({ type: "deadletter.discard", ...letter, ...asked });
    if (reply.discarded) this.figures.discarded(reply.letter.source);
    return reply.letter;
  }

  /** Discards, in one write, the dead letters still dead a bulk replay with this filter would take. */
  async bulkDiscard(
    tenantId: string,
    filter: BulkReplayFilter,
    asked: DiscardAsked,
  ): Promise<BulkDiscardReply> {
    const { letters, more, last } = await this.deps.tenant(tenantId).ask({
      type: "deadletter.discardSelected",
      selection: selectionOf(filter),
      ...asked,
    });
    for (const letter of letters) this.figures.discarded(letter.source);
    return {
      results: letters.map(({ event_id, source }) => ({ event_id, source })),
      discarded: letters.length,
      next_cursor: nextCursor(last, more),
    };
  }

  private async replayOne(
    tenantId: string,
    letter: DeadLetter,
    requestId: string,
  ): Promise<BulkReplayResult | undefined> {
    try {
      const reply = await this.deps.ingest.replay(tenantId, letter.event_id, letter.source, requestId);
      return { source: letter.source, ...reply };
    } catch (error) {
      // Erased (or purged), or discarded, since it was selected: nothing left to replay.
      if (error instanceof NotFound || error instanceof Conflict) return undefined;
      throw error;
    }
  }

  private async release(
    tenantId: string,
    source: string,
    requestId: string | null,
  ): Promise<SourceStatusReply> {
    const tenant = this.deps.tenant(tenantId);
    const begun = await tenant.ask({ type: "source.resume", source });
    if (begun.status === "active") return { source, ...begun };
    let previous: number | undefined;
    for (;;) {
      const step = await tenant.ask({ type: "held.next", source });
      if (!step.next) {
        if (step.status === "active") return { source, status: "active", held: 0 };
        // Paused again while releasing: the rest stays held.
        const again = await tenant.ask({ type: "source.pause", source });
        return { source, ...again };
      }
      if (step.next.seq === previous) throw new Error(SAME_EVENT_TWICE);
      previous = step.next.seq;
      await this.deps.ingest.release(tenantId, step.next, requestId);
    }
  }
}

/** `from` and `to` as epoch ms; `from` after `to` is a 422. */
function window(from?: string, to?: string): { from?: number; to?: number } {
  const f = from === undefined ? undefined : parseTimestamp(from);
  const t = to === undefined ? undefined : parseTimestamp(to);
  const bad = (path: string) =>
    new ValidationFailed(`${path.slice(1)} is not a real instant`, [{ path, message: "not a real instant" }]);
  if (from !== undefined && f === undefined) throw bad("/from");
  if (to !== undefined && t === undefined) throw bad("/to");
  if (f !== undefined && t !== undefined && f > t)
    throw new ValidationFailed("from is after to", [{ path: "/from", message: "must not be after to" }]);
  return { from: f, to: t };
}

/** What a bulk replay or a bulk discard selects: the body's window checked, its cursor decoded. */
function selectionOf(filter: BulkReplayFilter): DeadLetterSelection {
  const { from, to } = window(filter.from, filter.to);
  const after = filter.cursor === undefined ? undefined : decodeReplayCursor(filter.cursor);
  const { source, event_type } = filter;
  return { source, event_type, from, to, limit: filter.limit ?? 100, after };
}

/** The cursor after the last letter a page took, when others match after it. */
function nextCursor(last: LetterPosition | undefined, more: boolean): string | null {
  return more && last ? encodeReplayCursor(last) : null;
}

function encodeReplayCursor(letter: LetterPosition): string {
  const { received_at, event_id, source } = letter;
  return Buffer.from(JSON.stringify({ r: received_at, e: event_id, s: source })).toString("base64url");
}

function decodeReplayCursor(cursor: string): LetterPosition {
  try {
    const { r, e, s } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    if (typeof r === "string" && typeof e === "string" && typeof s === "string")
      return { received_at: r, event_id: e, source: s };
  } catch {
    // any decoding failure is the caller's malformed cursor
  }
  throw new ValidationFailed("cursor is malformed", [
    { path: "/cursor", message: "not a cursor this API returned" },
  ]);
}
