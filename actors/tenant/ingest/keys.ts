/** Keys of the ingest slice's tables (src/vault/tables.ts, `ingest`). */

/** The dedupe key of a source event. */
export function dedupeKey(source: string, eventId: string): string {
  return `${source}\u0000${eventId}`;
}

/** Dead letters are keyed event id first, so a replay by event id finds every source's record. */
export function deadLetterKey(eventId: string, source: string): string {
  return `${eventId}\u0000${source}`;
}

/** The objects-index key under which the latest decision about an object is kept. */
export function decisionKey(objectKey: string): string {
  return `decision\u0000${objectKey}`;
}

/** The objects-index key under which an object's timeline is kept (timeline.ts). */
export function timelineKey(objectKey: string): string {
  return `timeline\u0000${objectKey}`;
}

/** A NUL-separated string key as written: lmdb-js may read it back as the array of its parts. */
export function nulJoined(key: unknown): string {
  return Array.isArray(key) ? key.join("\u0000") : String(key);
}
