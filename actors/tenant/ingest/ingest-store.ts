import type { Staging } from "../../../src/vault/staging.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { DedupeRecord } from "../../../src/vault/write-set.ts";
import { deadLetterKey, nulJoined } from "./keys.ts";

/**
 * Reads of the ingest slice's tables (src/vault/tables.ts, `ingest`): dedupe records, the objects
 * index, dead letters and connector state, with the writes still committing overlaid.
 */
export class IngestStore {
  private readonly tables: TableViews<"ingest">;
  private readonly staging: Staging;

  constructor(vault: TenantVault) {
    this.tables = vault.tablesOf("ingest");
    this.staging = vault.staging;
  }

  deduped(key: string): DedupeRecord | undefined {
    return (this.staging.key("d", key) as DedupeRecord | undefined) ?? this.tables.dedupe.get(key);
  }

  objectLatest(objectKey: string): string | undefined {
    return (this.staging.key("o", objectKey) as string | undefined) ?? this.tables.objects.get(objectKey);
  }

  /** Every dead letter kept, replayed ones included (what erasing the tenant removes). */
  deadLetterCount(): number {
    return storedCount(this.tables.deadLetters);
  }

  /**
   * Dead letters still open: not replayed (`status: "dead"`), pending writes overlaid. A replayed
   * record stays kept for its history, but it is no longer work for the operator, so the
   * dashboard's count leaves it out. One pass over the dead letters (the list route reads them
   * the same way): they are the exceptions of a tenant's traffic, and retention purges replayed ones.
   */
  openDeadLetterCount(): number {
    let open = 0;
    for (const record of this.allDeadLetters()) if ((record as { status?: string }).status === "dead") open++;
    return open;
  }

  /** Dead letters of one event id (one per source that used it), pending writes first. */
  deadLettersOf(eventId: string): unknown[] {
    const prefix = `${eventId}\u0000`;
    const found = new Map<string, unknown>();
    for (const [key, value] of this.staging.keys("l")) if (key.startsWith(prefix)) found.set(key, value);
    // lmdb-js's key encoding reads a NUL as an array separator: a range bound ending in one is
    // mis-encoded for some lengths (dead letters of event ids near 50–60 characters were not
    // found), and keys come back as arrays (a pending replay's record then counted twice). So the
    // range is bounded on the bare id and each committed key is rebuilt as the string it was.
    const range = this.tables.deadLetters.getRange({ start: eventId, end: `${eventId}\u0001` });
    for (const { key, value } of range) {
      const written = writtenKey(key, value);
      if (written.startsWith(prefix) && !found.has(written)) found.set(written, value);
    }
    return [...found.values()];
  }

  /** Every dead letter, pending writes overlaid on committed ones. */
  allDeadLetters(): unknown[] {
    const all = new Map<string, unknown>();
    // Keyed as the pending ones are, or a record being replayed would be listed twice.
    for (const { key, value } of this.tables.deadLetters.getRange()) all.set(writtenKey(key, value), value);
    for (const [key, value] of this.staging.keys("l")) all.set(key, value);
    return [...all.values()];
  }

  /** Every committed dead letter with its key. */
  *deadLetterRecords(): Generator<[string, unknown]> {
    for (const { key, value } of this.tables.deadLetters.getRange()) yield [key, value];
  }

  connectorState(key: string): unknown {
    return this.tables.connectorState.get(key);
  }

  /** Connector statuses for tenant health: state keys `status:<connector>`. */
  connectorStatuses(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const range = this.tables.connectorState.getRange({ start: "status:", end: "status;" });
    for (const { key, value } of range) out[key.slice("status:".length)] = value;
    return out;
  }
}

/**
 * The string a dead letter was written under. Rebuilt from the record itself, which names its event
 * id and source: lmdb-js reads some keys back as arrays of parts (a NUL inside), and a long one
 * starting with a control character as an array holding a byte buffer, which no join restores.
 */
function writtenKey(key: unknown, value: unknown): string {
  const record = value as { event_id?: unknown; source?: unknown } | null;
  if (typeof record?.event_id === "string" && typeof record.source === "string")
    return deadLetterKey(record.event_id, record.source);
  return nulJoined(key);
}
