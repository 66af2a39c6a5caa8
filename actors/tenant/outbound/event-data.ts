import { NotFound } from "../../../src/errors/domain-errors.ts";
import type { Change } from "../../../src/models/change.ts";
import type { EventData } from "../../../src/protocols/outbound-protocol.ts";
import type { Tombstones } from "../erase/tombstones.ts";
import { deadLetterOf } from "../ingest/dead-letters.ts";
import type { IngestStore } from "../ingest/ingest-store.ts";
import type { MemoryQuery } from "../memory/query.ts";

/** What an event's data is read from: the entry as GET answers it, tombstones, dead letters. */
export interface EventReads {
  query: MemoryQuery;
  tombstones: Tombstones;
  deadLetters: IngestStore;
}

/**
 * An event's data: the change, and the entry as GET answers it now (an entry erased since: its id
 * and when; a dead letter: what it is, never its payload). Ids only in the change itself.
 */
export function eventData(change: Change, reads: EventReads): EventData {
  if (change.type === "deadletter.created") {
    try {
      const d = deadLetterOf(reads.deadLetters, change.id, change.source);
      return {
        change,
        dead_letter: {
          event_id: d.event_id,
          source: d.source,
          event_type: d.event_type,
          received_at: d.received_at,
          last_error: d.last_error,
        },
      };
    } catch (error) {
      if (error instanceof NotFound) return { change, dead_letter: null };
      throw error;
    }
  }
  const tombstone = reads.tombstones.of(change.id);
  if (tombstone) return { change, entry: { id: change.id, erased_at: tombstone.erased_at } };
  if (!change.category) return { change, entry: null };
  try {
    return { change, entry: reads.query.get(change.category, change.id, false) };
  } catch (error) {
    if (error instanceof NotFound) return { change, entry: null };
    throw error;
  }
}
