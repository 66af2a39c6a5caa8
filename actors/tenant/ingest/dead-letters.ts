import { Conflict, NotFound, ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { Delivery, IngestItem } from "../../../src/ingest/ingest-item.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeadLetter } from "../../../src/models/dead-letter.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { IngestStore } from "./ingest-store.ts";
import { deadLetterKey } from "./keys.ts";

/** A failed mapping's reason, as a dead letter keeps it. */
export function describe(result: { ok: false; reason: string; detail?: string }): string {
  return result.detail ? `${result.reason}: ${result.detail}` : result.reason;
}

/** Dead letters of this tenant, newest first, of one status or all. */
export function listDeadLetters(store: IngestStore, status: string | undefined, limit: number): DeadLetter[] {
  const out = (store.allDeadLetters() as DeadLetter[]).filter((r) => !status || r.status === status);
  // Newest first; ties broken by id so the order is stable.
  out.sort((a, b) => b.received_at.localeCompare(a.received_at) || a.event_id.localeCompare(b.event_id));
  return out.slice(0, limit);
}

/** The dead letter of `eventId`; `source` picks one when two sources used the same id. */
export function deadLetterOf(store: IngestStore, eventId: string, source?: string): DeadLetter {
  const records = (store.deadLettersOf(eventId) as DeadLetter[]).filter(
    (r) => !source || r.source === source,
  );
  if (records.length === 0) throw new NotFound("no such dead letter in this tenant");
  if (records.length > 1) {
    const sources = records.map((r) => r.source).join(", ");
    throw new ValidationFailed(`event id is dead-lettered by several sources (${sources}): add ?source=`, [
      { path: "/source", message: "required when several sources used this event id" },
    ]);
  }
  return records[0]!;
}

/** The letter, unless it was discarded: then no replay may take it (409). */
export function replayable(letter: DeadLetter): DeadLetter {
  if (letter.status === "discarded")
    throw new Conflict(
      `this dead letter was discarded (${letter.discarded_at ?? "earlier"}, by ${letter.discarded_by ?? "an operator"}): it is never replayed`,
    );
  return letter;
}

/**
 * The write of a new dead letter: the record, its change, the event's dedupe record and the
 * connector's state (its position moves past a dead letter too), in one commit.
 */
export function deadLetterSet(
  tenantId: string,
  delivery: Delivery,
  item: IngestItem,
  dedupe: { key: string; now: number },
  error: string,
): WriteSet {
  const { now } = dedupe;
  const record: DeadLetter = {
    event_id: item.event.event_id,
    tenant_id: tenantId,
    source: delivery.source,
    event_type: item.event.event_type,
    received_at: isoOf(now),
    attempts: 1,
    last_error: error,
    status: "dead",
    payload: item.event.payload,
    headers: delivery.headers,
  };
  return emptySet({
    deadLetters: [[deadLetterKey(record.event_id, record.source), record]],
    changes: [
      {
        type: "deadletter.created",
        id: record.event_id,
        source: record.source,
        by: `connector:${record.source}`,
      },
    ],
    at: now,
    dedupe: dedupeRecord(dedupe.key, now, []),
    state: item.state,
    stateSeq: item.stateSeq,
  });
}

export function dedupeRecord(key: string, at: number, entries: string[]) {
  return { key, record: { at, entries } };
}
