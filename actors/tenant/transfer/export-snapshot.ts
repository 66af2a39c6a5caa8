import { type ModelSpaceKind, tierOf } from "../../../src/embedding/vector-tiers.ts";
import {
  COUNTER_KEY_RE,
  type ExportChunk,
  type ExportCounts,
  RECORD_COUNTS,
  type RecordType,
  zeroCounts,
} from "../../../src/models/tenant-export.ts";
import type { Key, ReadOnlyTable, ReadTransaction } from "../../../src/vault/tables.ts";
import { vectorRecordId, vectorRecordVector } from "../../../src/vault/vector-records.ts";
import type { TransferTables } from "./transfer-tables.ts";

/** One exported section: a database, its record type, and the line of one key (undefined: skipped). */
interface Section {
  type: Exclude<RecordType, "role">;
  db: ReadOnlyTable<unknown, Key>;
  line(key: Key, value: unknown): string | undefined;
}

function sectionsOf(h: TransferTables, txn: ReadTransaction, kind: ModelSpaceKind | undefined): Section[] {
  const keyed = (type: Section["type"], db: ReadOnlyTable<unknown, Key>): Section => ({
    type,
    db,
    line: (key, value) => JSON.stringify({ type, key, value }),
  });
  return [
    { type: "entry", db: h.entries, line: (_, value) => JSON.stringify({ type: "entry", value }) },
    {
      type: "embedding",
      db: h.embeddings as ReadOnlyTable<unknown, Key>,
      // Exported as in format 1: keyed by entry id, the float32 components in base64, and in the
      // model's space its tier (under `tiered` a vector still queued is the table's). The bytes
      // are only valid until the next read: encoded at once.
      line: (seq, value) => {
        const bytes = value as Uint8Array;
        const vec = vectorRecordVector(bytes);
        const queued = () => h.embedQueue.get(seq as number, { transaction: txn }) !== undefined;
        return JSON.stringify({
          type: "embedding",
          key: vectorRecordId(bytes),
          value: Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength).toString("base64"),
          tier: kind && tierOf(kind, kind === "tiered" && queued()),
        });
      },
    },
    keyed("object", h.objects),
    {
      type: "dead_letter",
      db: h.deadLetters,
      line: (_, value) => JSON.stringify({ type: "dead_letter", value }),
    },
    keyed("dedupe", h.dedupe),
    keyed("idempotency", h.idempotency),
    keyed("connector_state", h.connectorState),
    { type: "change", db: h.changes, line: (_, value) => JSON.stringify({ type: "change", value }) },
    keyed("tombstone", h.tombstones),
    {
      type: "counter",
      db: h.meta,
      line: (key, value) =>
        typeof key === "string" && COUNTER_KEY_RE.test(key)
          ? JSON.stringify({ type: "counter", key, value })
          : undefined,
    },
  ];
}

/** The entry id of an entry or embedding record: both are keyed by sequence, the id is in the value. */
function entryIdOf(s: Section, value: unknown): string {
  return s.type === "entry"
    ? (value as { entry: { id: string } }).entry.id
    : vectorRecordId(value as Uint8Array);
}

/** A scoped export's sections: the entries it keeps and their embeddings; nothing else is theirs alone. */
function scopedSections(sections: Section[], keep: (id: string) => boolean): Section[] {
  return sections
    .filter((s) => s.type === "entry" || s.type === "embedding")
    .map((s) => ({
      ...s,
      line: (key, value) => (keep(entryIdOf(s, value)) ? s.line(key, value) : undefined),
    }));
}

/**
 * A consistent export: one LMDB read transaction, held from the first chunk to the last, so the
 * records of every chunk are of the same instant, whatever is written in between. Chunks resume
 * after the last key read, so nothing is held in memory but the chunk being built.
 */
export class ExportSnapshot {
  private readonly txn: ReadTransaction;
  private readonly sections: Section[];
  private section = 0;
  private after: Key | undefined;
  private readonly written = zeroCounts();
  private closed = false;

  /**
   * `txn`: a read transaction of the vault, released by `close`; `kind`: the runtime's embedder
   * when its vectors are in the sentence model's space (their lines then say their tier).
   */
  /** `keep`: a scoped export's entry ids; its sections are the entries and embeddings, kept ones only. */
  constructor(
    txn: ReadTransaction,
    tables: TransferTables,
    kind?: ModelSpaceKind,
    private readonly keep?: (id: string) => boolean,
  ) {
    this.txn = txn;
    const sections = sectionsOf(tables, txn, kind);
    this.sections = keep ? scopedSections(sections, keep) : sections;
  }

  /** What the snapshot holds, by type (roles are the system store's: 0 here). */
  counts(): ExportCounts {
    const counts = zeroCounts();
    for (const s of this.sections) {
      const key = RECORD_COUNTS[s.type];
      if (s.type === "counter") {
        for (const k of s.db.getKeys({ transaction: this.txn }))
          if (typeof k === "string" && COUNTER_KEY_RE.test(k)) counts[key]++;
      } else if (this.keep) counts[key] = this.keptCount(s);
      else counts[key] = s.db.getCount({ transaction: this.txn });
    }
    return counts;
  }

  /** A scoped section's records, counted by the entry id in each value (the keys are sequences). */
  private keptCount(s: Section): number {
    let n = 0;
    for (const { value } of s.db.getRange({ transaction: this.txn }))
      if (this.keep!(entryIdOf(s, value))) n++;
    return n;
  }

  /** The next records, at most `maxRecords` and about `maxBytes` of text. */
  read(maxRecords: number, maxBytes: number): ExportChunk {
    if (this.closed) throw new Error("export snapshot closed");
    const lines: string[] = [];
    let bytes = 0;
    while (this.section < this.sections.length && lines.length < maxRecords && bytes < maxBytes) {
      const s = this.sections[this.section]!;
      let exhausted = true;
      for (const { key, value } of s.db.getRange({ start: this.after, transaction: this.txn })) {
        // Resumes at the last key read (string and number keys compare by value).
        if (this.after !== undefined && key === this.after) continue;
        if (lines.length >= maxRecords || bytes >= maxBytes) {
          exhausted = false;
          break;
        }
        this.after = key;
        const line = s.line(key, value);
        if (line === undefined) continue;
        lines.push(line);
        bytes += line.length;
        this.written[RECORD_COUNTS[s.type]]++;
      }
      if (exhausted) {
        this.section++;
        this.after = undefined;
      }
    }
    const done = this.section >= this.sections.length;
    const text = lines.length > 0 ? `${lines.join("\n")}\n` : "";
    return done ? { text, done, written: { ...this.written } } : { text, done };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.txn.done();
  }
}
