import { AppError } from "../../../src/errors/domain-errors.ts";
import type { Delivery, IngestItem, IngestReply } from "../../../src/ingest/ingest-item.ts";
import { markUpkeep } from "../../../src/ingest/upkeep-marker.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeadLetter, ReplayReply } from "../../../src/models/dead-letter.ts";
import type { Provenance } from "../../../src/models/origin.ts";
import type { DeliveryOutcome } from "../../../src/models/webhook-operations.ts";
import { eventProvenance } from "../../../src/provenance/source-origin.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { IngestDraft } from "../../../src/sources/types.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { HeldRef } from "../../../src/vault/webhook-records.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { TenantMemory } from "../memory/memory.ts";
import { deadLetterOf, deadLetterSet, dedupeRecord, describe, replayable } from "./dead-letters.ts";
import { DeliveryLog } from "./delivery-log.ts";
import { DeliverySet } from "./delivery-set.ts";
import { HeldEvents } from "./held-events.ts";
import { holdDelivery } from "./hold.ts";
import { IngestStore } from "./ingest-store.ts";
import { deadLetterKey, decisionKey, dedupeKey } from "./keys.ts";
import { linkedDraft, UnknownReference } from "./linking.ts";
import { place, type TimelineReads } from "./timeline.ts";
import { upgradeTimelines } from "./timeline-upgrade.ts";
import type { WebhookPart } from "./webhook-parts.ts";

interface EventOutcome {
  entries: string[];
  error?: string;
}

export interface IngestOptions {
  tenantId: string;
  vault: TenantVault;
  memory: TenantMemory;
  clock: Clock;
}

/** What became of a held event that a resume applied; `gone`: released already (a concurrent resume). */
export interface HeldApplied {
  outcome: Exclude<DeliveryOutcome, "held"> | "gone";
  entries: string[];
}

/**
 * Webhook and connector ingestion inside the tenant actor: dedupe on (source, event_id), then per
 * event either entries (asked of the memory slice) or a dead letter, or, while the source is
 * paused, the event held. A delivery is one write set (delivery-set.ts): every event's entries,
 * dedupe record, dead letter, delivery log record and connector state, committed together; the
 * reply waits for it.
 */
export class TenantIngest {
  readonly store: IngestStore;
  readonly log: DeliveryLog;
  readonly held: HeldEvents;
  private readonly vault: TenantVault;

  constructor(private readonly opts: IngestOptions) {
    this.vault = opts.vault;
    this.store = new IngestStore(opts.vault);
    const tables = opts.vault.tablesOf("ingest");
    // A vault holding records that expire is marked, so the upkeep finds it while it is closed.
    this.log = new DeliveryLog(tables.deliveryLog, () => markUpkeep(opts.vault.dir, opts.clock.now()));
    this.held = new HeldEvents(tables, opts.vault.staging);
    // A vault of the earlier layout gets its objects' timelines once; a failed write leaves the pass
    // unmarked, so the next open runs it again.
    void upgradeTimelines(opts.vault, this.store, opts.memory.entries, opts.clock.now()).catch(
      () => undefined,
    );
  }

  ingest(delivery: Delivery): { summary: IngestReply; committed: Promise<void> } {
    if (this.held.holding(delivery.source)) {
      const ctx = { held: this.held, log: this.log, store: this.store, now: this.opts.clock.now() };
      const { reply, set } = holdDelivery(ctx, delivery);
      return { summary: reply, committed: this.vault.write(set) };
    }
    return this.apply(delivery);
  }

  /** A held event a resume releases, mapped again: applied as it would have been, released in the same write. */
  applyHeld(
    source: string,
    seq: number,
    item: IngestItem,
    requestId: string | null,
  ): { reply: HeldApplied; committed: Promise<void> } {
    const held = this.held.get(source, seq);
    if (!held || held.event_id !== item.event.event_id)
      return { reply: { outcome: "gone", entries: [] }, committed: Promise.resolve() };
    const delivery: Delivery = { source, items: [item], headers: held.headers, requestId, via: "resume" };
    const { summary, committed } = this.apply(delivery, { source, seq, event_id: held.event_id });
    const outcome: HeldApplied["outcome"] =
      summary.accepted > 0
        ? "accepted"
        : summary.dead_lettered.length > 0
          ? "dead_lettered"
          : summary.duplicates > 0
            ? "duplicate"
            : "ignored";
    return { reply: { outcome, entries: summary.entries }, committed };
  }

  /**
   * Applies a delivery's events in order, each one's part added to the delivery's one write set
   * (a held event's release rides with its log record), then writes that set.
   */
  private apply(delivery: Delivery, release?: HeldRef): { summary: IngestReply; committed: Promise<void> } {
    const summary: IngestReply = {
      accepted: 0,
      entries: [],
      duplicates: 0,
      dead_lettered: [],
      ignored: 0,
      paused: false,
      held: [],
    };
    const now = this.opts.clock.now();
    const batch = this.deliverySet();
    for (const item of delivery.items) {
      const key = dedupeKey(delivery.source, item.event.event_id);
      const logged = (outcome: DeliveryOutcome, entries: string[]) =>
        this.logPart(delivery, item, outcome, entries, now, release);
      // No held-event lookup here: a source holds events only while paused, and a paused source's
      // deliveries are held (holdDelivery), never applied; a release applies its own event.
      if (batch.deduped(key)) {
        summary.duplicates++;
        batch.add(besides(item, logged("duplicate", [])));
        continue;
      }
      if (item.result.ok && item.result.ignored) {
        // A type the source does not map: counted, nothing kept (a redelivery is ignored again).
        summary.ignored++;
        batch.add(besides(item, logged("ignored", [])));
        continue;
      }
      const outcome = item.result.ok
        ? this.writeDrafts(
            batch,
            delivery.source,
            item,
            key,
            (entries) => logged("accepted", entries),
            delivery,
          )
        : undefined;
      this.splitOff(batch, delivery, item, summary.dead_lettered, now);
      const error = item.result.ok ? outcome?.error : describe(item.result);
      if (error !== undefined) {
        batch.add(
          this.deadLetter(delivery, item, key, error, logged("dead_lettered", outcome?.entries ?? [])),
        );
        summary.dead_lettered.push(item.event.event_id);
        continue;
      }
      summary.accepted++;
      summary.entries.push(...(outcome?.entries ?? []));
    }
    return { summary, committed: this.commit(batch, now) };
  }

  /** The writes of one delivery (or one replay), read back by its events until they are written. */
  private deliverySet(): DeliverySet {
    return new DeliverySet({ store: this.store, entries: this.opts.memory.entries });
  }

  /** Writes the delivery's one set, its new entries searchable at once; a delivery of nothing writes nothing. */
  private commit(batch: DeliverySet, now: number): Promise<void> {
    const set = batch.toSet(now);
    return set ? this.opts.memory.writer.commitBatch(set, batch.fresh) : Promise.resolve();
  }

  /** A connector's own state (its position, its status), written as it is. */
  writeState(state: Array<[string, unknown]>): Promise<void> {
    return this.vault.write(emptySet({ state }));
  }

  /** Whether the event was taken already (`seen`), is held while its source is paused, or is new. */
  admission(source: string, eventId: string): "new" | "seen" | "held" {
    if (this.store.deduped(dedupeKey(source, eventId)) !== undefined) return "seen";
    return this.held.holding(source) || this.held.isHeld(source, eventId) ? "held" : "new";
  }

  /** Applies a replay's fresh mapping: entries and `replayed`, or one more failed attempt. */
  resolve(
    eventId: string,
    source: string,
    item: IngestItem,
    requestId: string | null = null,
  ): { reply: ReplayReply; committed: Promise<void> } {
    const record = replayable(deadLetterOf(this.store, eventId, source));
    if (record.status === "replayed") {
      return {
        reply: { event_id: eventId, status: "replayed", entries: record.entries ?? [] },
        committed: Promise.resolve(),
      };
    }
    const at = this.opts.clock.now();
    const now = isoOf(at);
    const key = dedupeKey(record.source, eventId);
    const batch = this.deliverySet();
    const outcome = item.result.ok ? this.writeDrafts(batch, record.source, item, key) : undefined;
    const delivery: Delivery = {
      source: record.source,
      items: [],
      headers: record.headers,
      requestId,
      via: "replay",
    };
    this.splitOff(batch, delivery, item, [], at);
    const error = item.result.ok ? outcome?.error : describe(item.result);
    const attempts = record.attempts + 1;
    const updated: DeadLetter =
      error === undefined
        ? { ...record, attempts, status: "replayed", entries: outcome?.entries ?? [], replayed_at: now }
        : { ...record, attempts, last_error: error };
    // The replay's outcome is logged with the dead letter's update, which every replay writes.
    const logged = this.logPart(
      delivery,
      item,
      error === undefined ? "accepted" : "dead_lettered",
      outcome?.entries ?? [],
      at,
    );
    batch.add({ deadLetters: [[deadLetterKey(eventId, record.source), updated]], ...logged });
    const reply: ReplayReply =
      error === undefined
        ? { event_id: eventId, status: "replayed", entries: updated.entries }
        : { event_id: eventId, status: "dead", last_error: error };
    return { reply, committed: this.commit(batch, at) };
  }

  /**
   * The parts an expansion split off an event for lacking what their entries need (a message of a
   * mail notification without a sender): each is a dead letter of its own, listed with the delivery's.
   */
  private splitOff(
    batch: DeliverySet,
    delivery: Delivery,
    item: IngestItem,
    deadLettered: string[],
    now: number,
  ): void {
    for (const part of (item.result.ok && item.result.rejected) || []) {
      const key = dedupeKey(delivery.source, part.event.event_id);
      if (batch.deduped(key)) continue;
      const failed = { ok: false as const, reason: part.reason, detail: part.detail };
      const split = { event: part.event, result: failed };
      const logged = this.logPart(delivery, split, "dead_lettered", [], now);
      batch.add(this.deadLetter(delivery, split, key, describe(failed), logged));
      deadLettered.push(part.event.event_id);
    }
  }

  /** An event's delivery log record (and a held event's release), as a part of a write set. */
  private logPart(
    delivery: Delivery,
    item: Pick<IngestItem, "event">,
    outcome: DeliveryOutcome,
    entries: string[],
    at: number,
    release?: HeldRef,
  ): WebhookPart {
    const { event_id, event_type } = item.event;
    const via = delivery.via ?? "delivery";
    const requestId = delivery.requestId ?? null;
    const record = {
      event_id,
      source: delivery.source,
      event_type,
      outcome,
      entries,
      request_id: requestId,
      via,
    };
    return { webhooks: { log: [this.log.record(record, at)], ...(release ? { released: [release] } : {}) } };
  }

  /**
   * Adds one event's drafts to the delivery's set; its dedupe record and the connector's state go
   * with the last draft's entry, or alone for an event of no drafts. A draft the tenant refuses
   * stops the event (it becomes a dead letter, and no dedupe record is added here); the entries of
   * the drafts before it are kept, as the dead letter's log record says.
   */
  private writeDrafts(
    batch: DeliverySet,
    source: string,
    item: IngestItem,
    key: string,
    logged: (entries: string[]) => WebhookPart = () => ({}),
    delivery?: Delivery,
  ): EventOutcome {
    const provenance = eventProvenance(source, item.event, delivery?.origin);
    const outcome: EventOutcome = { entries: [] };
    const drafts = item.result.ok ? item.result.drafts : [];
    const now = this.opts.clock.now();
    const closing = (lastId?: string): Partial<WriteSet> => {
      const entries = lastId === undefined ? outcome.entries : [...outcome.entries, lastId];
      return {
        dedupe: dedupeRecord(key, now, entries),
        ...(item.state ? { state: item.state } : {}),
        ...(item.stateSeq !== undefined ? { stateSeq: item.stateSeq } : {}),
        ...logged(entries),
      };
    };
    for (const [i, ingest] of drafts.entries()) {
      const last = i === drafts.length - 1;
      try {
        const written = this.writeOne(batch, ingest, source, item, provenance, {
          vector: item.vectors?.[i],
          now,
          closing: last ? closing : undefined,
        });
        batch.add(written.set, written.fresh);
        outcome.entries.push(written.id);
      } catch (error) {
        // Nothing is written here: a full vault refuses the delivery's one set at its write (507).
        if (!(error instanceof AppError)) throw error;
        outcome.error = error instanceof UnknownReference ? error.message : `invalid_draft: ${error.message}`;
        return outcome;
      }
    }
    if (drafts.length === 0) batch.add(closing());
    return outcome;
  }

  /**
   * One draft's entry, asked of the memory slice, with the objects index pointing at it: the
   * object's latest entry, and its latest decision (which an outcome about the same object
   * resolves). Everything it reads goes through the delivery's set, so it sees the events before it.
   */
  private writeOne(
    batch: DeliverySet,
    ingest: IngestDraft,
    source: string,
    item: IngestItem,
    provenance: Provenance,
    {
      vector,
      now,
      closing,
    }: { vector?: Float32Array; now: number; closing?: (id: string) => Partial<WriteSet> },
  ) {
    const linked = linkedDraft({ store: batch, entries: batch }, ingest, source, item);
    // Its place on its object's timeline (timeline.ts): in event time, closing what it ends.
    const placed = place(timelineReads(batch), ingest, linked, now);
    const objectKey = ingest.object_key;
    const alongside = (id: string): Partial<WriteSet> => {
      const closed = closing?.(id) ?? {};
      if (placed) return { ...closed, objects: placed.objects(id) };
      if (!objectKey) return closed;
      const objects: Array<[string, string]> = [[objectKey, id]];
      if (linked.category === "decision") objects.push([decisionKey(objectKey), id]);
      return { ...closed, objects };
    };
    return this.opts.memory.eventWrite({
      draft: placed?.draft ?? linked,
      by: `connector:${source}`,
      provenance,
      vector,
      now,
      effects: placed?.effects,
      alongside,
      lookup: (id) => batch.get(id),
    });
  }

  /** A new dead letter's part of the delivery's set, with the event's log record. */
  private deadLetter(
    delivery: Delivery,
    item: IngestItem,
    key: string,
    error: string,
    logged: WebhookPart,
  ): WriteSet {
    const now = this.opts.clock.now();
    return { ...deadLetterSet(this.opts.tenantId, delivery, item, { key, now }, error), ...logged };
  }
}

/**
 * The part of an event that writes nothing else (a duplicate, an ignored type): its log record,
 * with its connector state, whose position still moves on.
 */
function besides(item: IngestItem, part: WebhookPart): Partial<WriteSet> {
  if (!item.state || item.state.length === 0) return part;
  return { state: item.state, stateSeq: item.stateSeq, ...part };
}

/** What placing an entry on its timelines reads: the objects index and the entries, the delivery's writes overlaid. */
function timelineReads(batch: DeliverySet): TimelineReads {
  return { object: (key) => batch.objectLatest(key), entry: (id) => batch.get(id) };
}
