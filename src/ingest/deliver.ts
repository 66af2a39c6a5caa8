/**
 * The one ingest pipeline: every way an event arrives (a webhook, a replay of a dead letter, the CRM
 * stream, the messaging bridge) goes through `deliver`:
 *
 *   webhook only:  challenge → verify → parse → size → handshake
 *   every event:   map (or ignored) → expand (sources whose connector expands them) → embed
 *                  (`hash` only; others embed after the write) → the tenant actor: dedupe, then
 *                  write, or dead-letter
 *
 * Mapping, expansion and embedding need no tenant state and may do I/O, so they run here, outside
 * the tenant's mailbox; the tenant actor only dedupes and writes (actors/tenant/ingest/).
 */
import { vectorsOnWrite } from "../embedding/background-embedder.ts";
import type { Embedder } from "../embedding/embedder.ts";
import { NotFound, PayloadTooLarge } from "../errors/domain-errors.ts";
import { readBodyCapped } from "../http/body.ts";
import { requestIdOf } from "../http/request-id.ts";
import type { ReplayReply } from "../models/dead-letter.ts";
import type { HeldDelivery } from "../models/webhook-operations.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import { type DeliveryOrigin, deliveryOrigin } from "../provenance/source-origin.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Secrets } from "../secrets/secrets.ts";
import type {
  JwksResolver,
  MapResult,
  SourceContext,
  SourceEvent,
  SourceModule,
  WebhookReply,
  WebhookRequest,
} from "../sources/types.ts";
import type { CrmMappingHolder } from "./crm-mapping-holder.ts";
import { DeliveryCounters } from "./delivery-counters.ts";
import { deliveryRejected } from "./delivery-refusal.ts";
import { sanitiseHeaders } from "./headers.ts";
import type { IngestItem, IngestReply, IngestSummary } from "./ingest-item.ts";
import { WebhookFigures } from "./webhook-figures.ts";

/** A connector that turns an event into drafts through the platform's API (mail). */
export interface Expander {
  expand(
    tenantId: string,
    event: SourceEvent,
    ctx: SourceContext,
  ): Promise<{ result: MapResult; state?: Array<[string, unknown]>; stateSeq?: number }>;
  /** Whether the tenant committed an expanded event's result (see `Expansions`). */
  settled?(tenantId: string, eventId: string, committed: boolean): void;
}

/**
 * The events one delivery expanded. Expansion moves the connector's mark before the tenant
 * commits; each expander hears whether the commit landed, so a refused one (507) is expanded again
 * on redelivery instead of being skipped as already seen.
 */
class Expansions {
  private readonly done: Array<{ expander: Expander; eventId: string }> = [];

  constructor(private readonly tenantId: string) {}

  add(expander: Expander, eventId: string): void {
    this.done.push({ expander, eventId });
  }

  /**
   * Runs the delivery's work and reports its outcome to every expander involved. An event the
   * tenant held instead (its source paused meanwhile) kept nothing of its expansion: not committed.
   */
  async settle<T>(work: () => Promise<T>, heldOf: (result: T) => readonly string[] = () => []): Promise<T> {
    let committed = false;
    let held: ReadonlySet<string> = new Set();
    try {
      const result = await work();
      committed = true;
      held = new Set(heldOf(result));
      return result;
    } finally {
      for (const { expander, eventId } of this.done)
        expander.settled?.(this.tenantId, eventId, committed && !held.has(eventId));
    }
  }
}

export interface PipelineDeps {
  secrets: Secrets;
  clock: Clock;
  embedder: Embedder;
  jwks: JwksResolver;
  crmMapping: CrmMappingHolder;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** By the name sources give in `expandsVia`. */
  expanders?: Readonly<Record<string, Expander>>;
  /** The API body limit: a webhook body over it is a 413 (after its signature check). */
  bodyLimit: number;
  /** The tenant's status: a suspended tenant's events are kept as dead letters, not written. */
  tenantStatus(tenantId: string): "active" | "suspended" | undefined;
  /** Sources a dead letter may come from: the webhook sources and the in-process ones (messaging). */
  sourceOf(id: string): SourceModule | undefined;
}

/** How one delivery of events arrived, beyond the events themselves. */
export interface Arrival {
  ctx: SourceContext;
  /** Sanitised delivery headers, kept with any dead letter. */
  headers: Record<string, string>;
  /** Connector state committed with the delivery (replay ids), ordered by `stateSeq`. */
  state?: Array<[string, unknown]>;
  stateSeq?: number;
  /** The X-Request-Id of the request that carried it (the delivery log's `request_id`). */
  requestId?: string;
  /** A webhook delivery's verification, for its entries' origins. */
  origin?: DeliveryOrigin;
}

/**
 * Bodies are read up to this multiple of the limit before the signature check, so the checks keep
 * CONTRACT §7's order (signature before size) while memory stays bounded.
 */
const HARD_CAP_FACTOR = 4;

export class IngestPipeline {
  /** What became of each source's deliveries since the process started (the dashboard shows them). */
  readonly counters = new DeliveryCounters();
  /** Paused sources, held events, releases, replays and purges on this node (the metrics read them). */
  readonly figures = new WebhookFigures();

  constructor(private readonly deps: PipelineDeps) {}

  /** The source's context; throws SecretMissing (503) when a required secret is absent. */
  context(source: SourceModule, tenantId: string): SourceContext {
    const secrets = this.deps.secrets.require(source.requiredSecrets, tenantId, source.optionalSecrets);
    return this.contextWith(secrets, tenantId);
  }

  /** Replays and connectors map again without a signature check: whatever secrets exist will do. */
  lenientContext(source: SourceModule, tenantId: string): SourceContext {
    const secrets: Record<string, string> = {};
    for (const base of [...source.requiredSecrets, ...source.optionalSecrets]) {
      const value = this.deps.secrets.get(base, tenantId);
      if (value !== undefined) secrets[base] = value;
    }
    return this.contextWith(secrets, tenantId);
  }

  /** `POST /webhooks/{source}/{tenant}` after the source and tenant are known: CONTRACT §7's order. */
  async webhook(
    source: SourceModule,
    tenantId: string,
    request: Request,
  ): Promise<IngestSummary | WebhookReply> {
    const ctx = this.context(source, tenantId);
    const limit = this.deps.bodyLimit;
    const delivery: WebhookRequest = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      rawBody: await readBodyCapped(request, limit * HARD_CAP_FACTOR),
    };
    const challenged = source.challenge?.(delivery, ctx);
    if (challenged) return challenged;
    const verdict = await source.verify(delivery, ctx);
    if (!verdict.ok) throw deliveryRejected(source.id, request.headers, verdict.reason);
    const events = source.parse(delivery, ctx);
    if (delivery.rawBody.byteLength > limit) throw new PayloadTooLarge(`body exceeds ${limit} bytes`);
    const handshake = source.handshake?.(delivery, ctx);
    if (handshake) return handshake;
    const requestId = requestIdOf(request);
    const reply = await this.deliver(source, tenantId, events, {
      ctx,
      headers: sanitiseHeaders(request.headers),
      requestId,
      origin: deliveryOrigin(source.id, request.headers, delivery.rawBody, requestId),
    });
    const { paused, held, ...summary } = reply;
    // A paused source's delivery is kept, not applied: 202 (a platform that expects its own
    // acknowledgement, the CRM's SOAP ack, still gets it, with the count in its summary header).
    if (paused) return source.respond ? source.respond({ held: held.length }) : heldAnswer(held.length);
    return source.respond ? source.respond(summary) : summary;
  }

  /** The pipeline every event goes through, whichever way it arrived. */
  async deliver(
    source: SourceModule,
    tenantId: string,
    events: SourceEvent[],
    arrival: Arrival,
  ): Promise<IngestReply> {
    const expansions = new Expansions(tenantId);
    const summary = await expansions.settle(
      async () => {
        // Nothing delivered while suspended is lost: it waits as a dead letter, replayable after resume.
        const items: IngestItem[] =
          this.deps.tenantStatus(tenantId) === "suspended"
            ? events.map((event) => ({ event, result: { ok: false as const, reason: "tenant_suspended" } }))
            : await this.items(source, tenantId, events, arrival.ctx, expansions);
        const last = items[items.length - 1];
        if (last && arrival.state) {
          last.state = [...(last.state ?? []), ...arrival.state];
          last.stateSeq = arrival.stateSeq ?? last.stateSeq;
        }
        return this.deps.tenant(tenantId).ask({
          type: "webhook.ingest",
          delivery: {
            source: source.id,
            items,
            headers: arrival.headers,
            requestId: arrival.requestId ?? null,
            ...(arrival.origin ? { origin: arrival.origin } : {}),
          },
        });
      },
      (reply) => reply.held,
    );
    this.counters.delivered(source.id, summary);
    if (summary.paused) this.figures.held(tenantId, source.id, summary.held.length);
    return summary;
  }

  /**
   * Applies one event a resume releases (docs/webhook-operations.md): mapped again, as a replay
   * is (no signature check: it was verified on arrival), then applied and released by the tenant
   * in one write. `gone`: another resume released it first.
   */
  async release(
    tenantId: string,
    held: HeldDelivery,
    requestId: string | null,
  ): Promise<{ outcome: string; entries: string[] }> {
    const event: SourceEvent = {
      event_id: held.event_id,
      event_type: held.event_type,
      payload: held.payload,
    };
    const source = this.deps.sourceOf(held.source);
    const expansions = new Expansions(tenantId);
    const reply = await expansions.settle(async () => {
      const item: IngestItem = !source
        ? { event, result: { ok: false, reason: "unknown_source" } }
        : this.deps.tenantStatus(tenantId) === "suspended"
          ? { event, result: { ok: false, reason: "tenant_suspended" } }
          : (
              await this.items(
                source,
                tenantId,
                [event],
                this.lenientContext(source, tenantId),
                expansions,
                true,
              )
            )[0]!;
      return this.deps
        .tenant(tenantId)
        .ask({ type: "held.apply", source: held.source, seq: held.seq, item, requestId });
    });
    if (reply.outcome !== "gone") {
      this.counters.released(held.source, reply.outcome);
      this.figures.released(tenantId, held.source, reply.outcome);
    }
    return reply;
  }

  /** Maps a dead letter again (no signature check) and records the result; unknown → 404. */
  async replay(
    tenantId: string,
    eventId: string,
    sourceId?: string,
    requestId?: string,
  ): Promise<ReplayReply> {
    const tenant = this.deps.tenant(tenantId);
    const record = await tenant.ask({ type: "deadletter.get", eventId, source: sourceId });
    const source = this.deps.sourceOf(record.source);
    if (!source) throw new NotFound(`source ${record.source} is no longer known`);
    const ctx = this.lenientContext(source, tenantId);
    const event = { event_id: record.event_id, event_type: record.event_type, payload: record.payload };
    const expansions = new Expansions(tenantId);
    const reply = await expansions.settle(async () => {
      const [item] = await this.items(source, tenantId, [event], ctx, expansions, true);
      const resolve = { eventId, source: record.source, item: item!, requestId: requestId ?? null };
      return tenant.ask({ type: "deadletter.resolve", ...resolve });
    });
    this.figures.replayed(reply.status);
    return reply;
  }

  /** map → expand → embed, per event; `replay`: a dead letter the tenant already knows of. */
  private async items(
    source: SourceModule,
    tenantId: string,
    events: SourceEvent[],
    ctx: SourceContext,
    expansions: Expansions,
    replay = false,
  ): Promise<IngestItem[]> {
    const items: IngestItem[] = [];
    for (const event of events) {
      const mapped = safeMap(source, event, ctx);
      const item =
        mapped.ok && mapped.expand
          ? await this.expand(source, tenantId, event, ctx, expansions, replay)
          : undefined;
      const ready = item ?? { event, result: mapped };
      ready.vectors = await this.vectors(ready.result);
      items.push(ready);
    }
    return items;
  }

  /**
   * The explicit expansion step. Expansion consumes the platform's history (the mailbox's), so an
   * event the tenant already owns is not expanded again: its delivery is then a duplicate.
   */
  private async expand(
    source: SourceModule,
    tenantId: string,
    event: SourceEvent,
    ctx: SourceContext,
    expansions: Expansions,
    replay: boolean,
  ): Promise<IngestItem> {
    if (!replay) {
      // Taken already (a duplicate), or to be held (its source paused): not expanded now.
      const admission = await this.deps
        .tenant(tenantId)
        .ask({ type: "webhook.seen", source: source.id, eventId: event.event_id });
      if (admission !== "new") return { event, result: { ok: true, drafts: [] } };
    }
    const expander = source.expandsVia ? this.deps.expanders?.[source.expandsVia] : undefined;
    if (!expander)
      return { event, result: { ok: false, reason: `${source.expandsVia ?? source.id}_api_not_configured` } };
    try {
      expansions.add(expander, event.event_id);
      return { event, ...(await expander.expand(tenantId, event, ctx)), expanded: true };
    } catch (error) {
      const reason = `${source.expandsVia}_expand_failed`;
      return { event, result: { ok: false, reason, detail: errorText(error) } };
    }
  }

  /**
   * Entries from events get embeddings like API entries: computed here under `hash`, by the
   * background embedder after the write under `local` and `http`, never under `client` (callers
   * own vectors).
   */
  private async vectors(result: MapResult): Promise<Array<Float32Array | undefined> | undefined> {
    if (!result.ok || result.drafts.length === 0) return undefined;
    if (vectorsOnWrite(this.deps.embedder.kind) !== "inline") return undefined;
    return this.deps.embedder.embed(result.drafts.map((d) => d.draft.content));
  }

  private contextWith(secrets: Record<string, string>, tenantId: string): SourceContext {
    return {
      tenantId,
      secrets,
      now: () => this.deps.clock.now(),
      crmMapping: this.deps.crmMapping.current(),
      jwks: this.deps.jwks,
    };
  }
}

/** A delivery to a paused source: held, nothing written (docs/webhook-operations.md). */
function heldAnswer(held: number): WebhookReply {
  return { status: 202, headers: { "content-type": "application/json" }, body: JSON.stringify({ held }) };
}

/** A mapper that throws on a payload it did not expect is a dead letter, not a 500. */
function safeMap(source: SourceModule, event: SourceEvent, ctx: SourceContext): MapResult {
  try {
    return source.map(event, ctx);
  } catch (error) {
    return { ok: false, reason: "mapping_failed", detail: errorText(error) };
  }
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 300);
}
