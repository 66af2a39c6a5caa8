import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { DeliveryOutcome, DeliveryRecord } from "../../../src/models/webhook-operations.ts";
import type { ReadOnlyTable } from "../../../src/vault/tables.ts";
import type { LogKey } from "../../../src/vault/webhook-records.ts";

/** Records a page may look at (past its filters) before it answers with what it found and a cursor. */
export const MAX_SCANNED_PER_PAGE = 50_000;

export interface DeliveryFilter {
  source?: string;
  event_id?: string;
  outcome?: DeliveryOutcome;
  /** Epoch ms, inclusive. */
  from?: number;
  to?: number;
}

export interface DeliveryPageReply {
  deliveries: DeliveryRecord[];
  next_cursor: string | null;
}

/**
 * The delivery log (the ingest slice's `delivery-log` table): one record per event outcome, keyed
 * by when it was logged and a number unique within that millisecond, so it reads newest first and
 * purges oldest first by key range. Records are written by the write set of the event they
 * describe (webhook-records.ts); this class makes their keys and reads pages.
 */
export class DeliveryLog {
  private next: number;
  /** The newest millisecond logged before this actor started: only there can an older key be met again. */
  private readonly floorMs: number;

  /** Whether `onFirstRecord` ran since the start (or since `rearm`). */
  private announced = false;

  /** `onFirstRecord`: told before the first record of the actor's run is handed out (the upkeep marker). */
  constructor(
    private readonly table: ReadOnlyTable<DeliveryRecord, LogKey>,
    private readonly onFirstRecord: () => void = () => undefined,
  ) {
    let last: LogKey | undefined;
    for (const key of table.getKeys({ reverse: true, limit: 1 })) last = key;
    this.floorMs = last ? last[0] : Number.NEGATIVE_INFINITY;
    this.next = last ? last[1] + 1 : 0;
  }

  /** A record to log with the event's write set, and its key. */
  record(fields: Omit<DeliveryRecord, "received_at">, at: number): [LogKey, DeliveryRecord] {
    if (!this.announced) {
      this.onFirstRecord();
      this.announced = true;
    }
    let key: LogKey = [at, this.next++];
    // The clock went back across a restart: a key of an earlier run may be taken; never overwrite it.
    while (at <= this.floorMs && this.table.doesExist(key)) key = [at, this.next++];
    return [key, { ...fields, received_at: isoOf(at) }];
  }

  /** Newest first, after `cursor`, matching `filter`; at most `limit` records. */
  page(filter: DeliveryFilter, limit: number, cursor?: string): DeliveryPageReply {
    const after = cursor === undefined ? undefined : decodeLogCursor(cursor);
    const start: LogKey = after ?? [filter.to ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    const deliveries: DeliveryRecord[] = [];
    let scanned = 0;
    for (const { key, value } of this.table.getRange({ start, reverse: true })) {
      if (after && key[0] === after[0] && key[1] === after[1]) continue;
      if (filter.from !== undefined && key[0] < filter.from) return { deliveries, next_cursor: null };
      if (key[0] <= (filter.to ?? Number.POSITIVE_INFINITY) && matches(value, filter)) {
        deliveries.push(value);
        if (deliveries.length === limit) return { deliveries, next_cursor: encodeLogCursor(key) };
      }
      // Bounded work per page: a rare filter over a long log answers in several pages.
      if (++scanned >= MAX_SCANNED_PER_PAGE) return { deliveries, next_cursor: encodeLogCursor(key) };
    }
    return { deliveries, next_cursor: null };
  }

  /** The upkeep marker was removed (nothing left to expire): the next record announces itself again. */
  rearm(): void {
    this.announced = false;
  }

  /** Keys logged before `cutoff` (epoch ms), oldest first, at most `max`. */
  expired(cutoff: number, max: number): LogKey[] {
    return [...this.table.getKeys({ end: [cutoff, 0], limit: max })];
  }

  /** When the oldest record logged at or after `from` (epoch ms) was logged, if any. */
  oldestFrom(from: number): number | undefined {
    for (const key of this.table.getKeys({ start: [from, 0], limit: 1 })) return key[0];
    return undefined;
  }

  /** Keys of every record `pick` selects (an erasure's: records of erased entries or naming its subject). */
  keysWhere(pick: (record: DeliveryRecord) => boolean): LogKey[] {
    const keys: LogKey[] = [];
    for (const { key, value } of this.table.getRange()) if (pick(value)) keys.push(key);
    return keys;
  }
}

function matches(record: DeliveryRecord, filter: DeliveryFilter): boolean {
  return (
    (filter.source === undefined || record.source === filter.source) &&
    (filter.event_id === undefined || record.event_id === filter.event_id) &&
    (filter.outcome === undefined || record.outcome === filter.outcome)
  );
}

export function encodeLogCursor(key: LogKey): string {
  return Buffer.from(JSON.stringify({ t: key[0], n: key[1] })).toString("base64url");
}

export function decodeLogCursor(cursor: string): LogKey {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as {
      t?: unknown;
      n?: unknown;
    };
    const { t, n } = parsed;
    if (Number.isSafeInteger(t) && Number.isSafeInteger(n) && (n as number) >= 0)
      return [t as number, n as number];
  } catch {
    // any decoding failure is the caller's malformed cursor
  }
  throw new ValidationFailed("cursor is malformed", [
    { path: "/cursor", message: "not a cursor this API returned" },
  ]);
}
