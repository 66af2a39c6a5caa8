import type { Delivery, IngestReply } from "../../../src/ingest/ingest-item.ts";
import { isoOf } from "../../../src/models/common.ts";
import type {
  DeliveryOutcome,
  DeliveryRecord,
  HeldDelivery,
} from "../../../src/models/webhook-operations.ts";
import type { LogKey } from "../../../src/vault/webhook-records.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { DeliveryLog } from "./delivery-log.ts";
import type { HeldEvents } from "./held-events.ts";
import type { IngestStore } from "./ingest-store.ts";
import { dedupeKey } from "./keys.ts";

export interface HoldContext {
  held: HeldEvents;
  log: DeliveryLog;
  store: IngestStore;
  now: number;
}

/**
 * A delivery to a paused source: each new event is kept as it arrived (the parsed event and the
 * sanitised headers, no mapping kept), in arrival order, and logged `held`; an event taken or held
 * already is a duplicate. One write set for the whole delivery, with the connector's position
 * (a stream's replay id: the event is the tenant's now), except what an expansion made: that
 * moved the mail watch's mark, which must stay where it was so the release expands it again.
 */
export function holdDelivery(ctx: HoldContext, delivery: Delivery): { reply: IngestReply; set: WriteSet } {
  const { source } = delivery;
  const reply: IngestReply = {
    accepted: 0,
    entries: [],
    duplicates: 0,
    dead_lettered: [],
    ignored: 0,
    paused: true,
    held: [],
  };
  const held: HeldDelivery[] = [];
  const log: Array<[LogKey, DeliveryRecord]> = [];
  const state: Array<[string, unknown]> = [];
  let stateSeq: number | undefined;
  const taken = new Set<string>();
  const logged = (item: Delivery["items"][number], outcome: DeliveryOutcome) => {
    const { event_id, event_type } = item.event;
    const request_id = delivery.requestId ?? null;
    const record = {
      event_id,
      source,
      event_type,
      outcome,
      entries: [],
      request_id,
      via: delivery.via ?? "delivery",
    };
    log.push(ctx.log.record(record, ctx.now));
  };
  for (const item of delivery.items) {
    if (!item.expanded && item.state) {
      state.push(...item.state);
      stateSeq = item.stateSeq ?? stateSeq;
    }
    const eventId = item.event.event_id;
    if (
      taken.has(eventId) ||
      ctx.store.deduped(dedupeKey(source, eventId)) ||
      ctx.held.isHeld(source, eventId)
    ) {
      reply.duplicates++;
      logged(item, "duplicate");
      continue;
    }
    taken.add(eventId);
    held.push({
      seq: ctx.held.takeSeq(source),
      source,
      event_id: eventId,
      event_type: item.event.event_type,
      payload: item.event.payload,
      headers: delivery.headers,
      received_at: isoOf(ctx.now),
      request_id: delivery.requestId ?? null,
    });
    reply.held.push(eventId);
    logged(item, "held");
  }
  const set = emptySet({
    webhooks: { held, log },
    ...(state.length > 0 ? { state, ...(stateSeq !== undefined ? { stateSeq } : {}) } : {}),
  });
  return { reply, set };
}
