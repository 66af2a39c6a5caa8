import { closeSync, existsSync, fsyncSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type Database, type Key, open, type RootDatabase, type Transaction } from "lmdb";
import { isVectorIndexFile } from "../../../src/embedding/index-tuning.ts";
import { ValidationFailed } from "../../../src/errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Change } from "../../../src/models/change.ts";
import {
  COUNTER_KEY_RE,
  type ExportChunk,
  type ExportCounts,
  type NumberedRecord,
  RECORD_COUNTS,
  type RecordType,
  type VaultRecord,
  zeroCounts,
} from "../../../src/models/tenant-export.ts";
import { deadLetterKey, VAULT_MAX_DBS } from "../../../src/vault/tenant-vault.ts";
import { encodeVectorRecord, vectorRecordId, vectorRecordVector } from "../../../src/vault/vector-records.ts";

/**
 * The databases of a tenant vault as an export reads them and an import writes them. Every database
 * is named here with its encoding (lmdb-js's default msgpack unless said otherwise): an allowlist,
 * so that a database added later (outbound subscriptions hold secrets) is never exported by
 * accident. The derivable indexes are written on import, never exported.
 */
interface Handles {
  entries: Database<StoredEntry, string>;
  byCategory: Database<string, [string, number]>;
  byTag: Database<string, [string, number]>;
  byValid: Database<string, [number, number]>;
  /** Float32 vectors as raw bytes. */
  embeddings: Database<Buffer, number>;
  objects: Database<string, string>;
  deadLetters: Database<unknown, string>;
  dedupe: Database<unknown, string>;
  idempotency: Database<unknown, string>;
  connectorState: Database<unknown, string>;
  meta: Database<number, string>;
  changes: Database<Change, number>;
  changesByEntry: Database<string, [string, number]>;
  tombstones: Database<unknown, string>;
}

function openHandles(root: RootDatabase): Handles {
  return {
    entries: root.openDB({ name: "entries" }),
    byCategory: root.openDB({ name: "by-category" }),
    byTag: root.openDB({ name: "by-tag" }),
    byValid: root.openDB({ name: "by-valid" }),
    embeddings: root.openDB({ name: "embeddings", encoding: "binary" }),
    objects: root.openDB({ name: "objects" }),
    deadLetters: root.openDB({ name: "dead-letters" }),
    dedupe: root.openDB({ name: "dedupe" }),
    idempotency: root.openDB({ name: "idempotency" }),
    connectorState: root.openDB({ name: "connector-state" }),
    meta: root.openDB({ name: "meta" }),
    changes: root.openDB({ name: "changes" }),
    changesByEntry: root.openDB({ name: "changes-by-entry" }),
    tombstones: root.openDB({ name: "tombstones" }),
  };
}

/** One exported section: a database, its record type, and the line of one key (undefined: skipped). */
interface Section {
  type: Exclude<RecordType, "role">;
  db: Database<unknown, Key>;
  line(key: Key, value: unknown): string | undefined;
}

function sectionsOf(h: Handles): Section[] {
  const keyed = (type: Section["type"], db: Database<unknown, Key>): Section => ({
    type,
    db,
    line: (key, value) => JSON.stringify({ type, key, value }),
  });
  return [
    { type: "entry", db: h.entries, line: (_, value) => JSON.stringify({ type: "entry", value }) },
    {
      type: "embedding",
      db: h.embeddings as Database<unknown, Key>,
      // Exported as in format 1: keyed by entry id, the float32 components in base64. The bytes
      // are only valid until the next read: encoded at once.
      line: (_, value) => {
        const bytes = value as Uint8Array;
        const vec = vectorRecordVector(bytes);
        return JSON.stringify({
          type: "embedding",
          key: vectorRecordId(bytes),
          value: Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength).toString("base64"),
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

/**
 * A consistent export: one LMDB read transaction, held from the first chunk to the last, so the
 * records of every chunk are of the same instant, whatever is written in between. Chunks resume
 * after the last key read, so nothing is held in memory but the chunk being built.
 */
export class ExportSnapshot {
  private readonly txn: Transaction;
  private readonly sections: Section[];
  private section = 0;
  private after: Key | undefined;
  private readonly written = zeroCounts();
  private closed = false;

  constructor(root: RootDatabase, handles: Handles) {
    this.txn = root.useReadTransaction();
    this.sections = sectionsOf(handles);
  }

  /** What the snapshot holds, by type (roles are the system store's: 0 here). */
  counts(): ExportCounts {
    const counts = zeroCounts();
    for (const s of this.sections) {
      const key = RECORD_COUNTS[s.type];
      if (s.type === "counter") {
        for (const k of s.db.getKeys({ transaction: this.txn }))
          if (typeof k === "string" && COUNTER_KEY_RE.test(k)) counts[key]++;
      } else counts[key] = s.db.getCount({ transaction: this.txn });
    }
    return counts;
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

/** Marker file of an import in progress: an environment holding one on open drops the import. */
const IMPORT_MARKER = "import-pending";
/** The vector index's files (actors/memory/indexes.ts): derived from the vault, rebuilt on open. */

/**
 * Exports and imports of one tenant vault, on the vault's LMDB environment. The tenant actor owns
 * it, so an import never races the vault's own writes; it refuses other work meanwhile, and is
 * restarted afterwards (its vault caches entries and keeps its sequences in memory).
 */
export class VaultTransfer {
  private handles: Handles | undefined;

  constructor(
    private readonly root: RootDatabase,
    private readonly dir: string,
  ) {}

  private dbs(): Handles {
    this.handles ??= openHandles(this.root);
    return this.handles;
  }

  snapshot(): ExportSnapshot {
    return new ExportSnapshot(this.root, this.dbs());
  }

  /** Marks the vault as holding an import in progress (durably, before any of it is written). */
  beginImport(startedAt: number): void {
    writeMarker(join(this.dir, IMPORT_MARKER), String(startedAt));
  }

  /**
   * Writes one batch in one transaction: the records, and the index keys of its entries. A batch
   * naming an entry id, an entry sequence or a change position already written is refused whole.
   */
  writeBatch(batch: NumberedRecord[]): Promise<void> {
    const h = this.dbs();
    checkUnique(h, batch);
    return this.root.childTransaction(() => {
      for (const { record } of batch) putRecord(h, record);
    });
  }

  /** The last batch, then the marker goes: the import is complete. */
  async finishImport(batch: NumberedRecord[]): Promise<void> {
    await this.writeBatch(batch);
    rmSync(join(this.dir, IMPORT_MARKER), { force: true });
  }

  /** Drops whatever an import wrote (the vault was empty before it), then the marker. */
  async abortImport(): Promise<void> {
    const h = this.dbs();
    await this.root.childTransaction(() => clearImported(h));
    rmSync(join(this.dir, IMPORT_MARKER), { force: true });
  }
}

/**
 * An import the process did not live to finish (or to abort) is dropped before the vault opens:
 * an import is all or nothing. Called with the vault closed; answers whether it dropped one.
 */
export function discardUnfinishedImport(dir: string): boolean {
  const marker = join(dir, IMPORT_MARKER);
  if (!existsSync(marker)) return false;
  const root = open({ path: dir, compression: false, maxDbs: VAULT_MAX_DBS });
  try {
    const h = openHandles(root);
    root.transactionSync(() => clearImported(h));
  } finally {
    void root.close();
  }
  // The vector index files may hold vectors of the import: rebuilt from the vault on open.
  for (const file of readdirSync(dir)) if (isVectorIndexFile(file)) rmSync(join(dir, file), { force: true });
  rmSync(marker, { force: true });
  return true;
}

function clearImported(h: Handles): void {
  // Connector state is not cleared: an import writes it in its last transaction only, so the
  // state of the tenant's own connectors survives an aborted import.
  const all = [
    h.entries,
    h.byCategory,
    h.byTag,
    h.byValid,
    h.embeddings,
    h.objects,
    h.deadLetters,
    h.dedupe,
    h.idempotency,
    h.changes,
    h.changesByEntry,
    h.tombstones,
  ] as Database<unknown, Key>[];
  for (const db of all) db.clearSync();
  for (const key of [...h.meta.getKeys()])
    if (typeof key === "string" && COUNTER_KEY_RE.test(key)) h.meta.remove(key);
}

function checkUnique(h: Handles, batch: NumberedRecord[]): void {
  const ids = new Set<string>();
  const seqs = new Set<string>();
  const positions = new Set<number>();
  for (const { line, record } of batch) {
    if (record.type === "entry") {
      const { seq, entry } = record.value;
      const slot = `${entry.category}:${seq}`;
      if (ids.has(entry.id) || h.entries.doesExist(entry.id))
        duplicate(line, `entry ${entry.id} is imported twice`, "/value/entry/id");
      if (seqs.has(slot) || h.byCategory.doesExist([entry.category, seq]))
        duplicate(line, `sequence ${seq} is used twice among ${entry.category} entries`, "/value/seq");
      ids.add(entry.id);
      seqs.add(slot);
    } else if (record.type === "change") {
      const seq = record.value.seq;
      if (positions.has(seq) || h.changes.doesExist(seq))
        duplicate(line, `change log position ${seq} is imported twice`, "/value/seq");
      positions.add(seq);
    }
  }
}

function duplicate(line: number, message: string, path: string): never {
  throw new ValidationFailed(`line ${line}: ${message}`, [{ path, message: `line ${line}: ${message}` }]);
}

function putRecord(h: Handles, record: VaultRecord): void {
  switch (record.type) {
    case "entry": {
      const stored = record.value as StoredEntry;
      const e = stored.entry;
      h.entries.put(e.id, stored);
      // The index keys exactly as TenantVault writes them for a new entry.
      h.byCategory.put([e.category, stored.seq], e.id);
      for (const tag of new Set(e.tags ?? [])) h.byTag.put([tag, stored.seq], e.id);
      h.byValid.put([Date.parse(e.valid_from), stored.seq], e.id);
      return;
    }
    case "embedding": {
      // Stored under its entry's sequence number (vector-records.ts); entries come first in an export.
      const seq = h.entries.get(record.key)?.seq;
      if (seq === undefined) throw new ValidationFailed(`an embedding of no imported entry (${record.key})`);
      const bytes = Buffer.from(record.value, "base64");
      const vec = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vec.buffer).set(bytes);
      h.embeddings.put(seq, encodeVectorRecord(record.key, vec));
      return;
    }
    case "object":
      h.objects.put(record.key, record.value);
      return;
    case "dead_letter":
      h.deadLetters.put(deadLetterKey(record.value.event_id, record.value.source), record.value);
      return;
    case "dedupe":
      h.dedupe.put(record.key, record.value);
      return;
    case "idempotency":
      h.idempotency.put(record.key, record.value);
      return;
    case "connector_state":
      h.connectorState.put(record.key, record.value);
      return;
    case "change":
      h.changes.put(record.value.seq, record.value);
      h.changesByEntry.put([record.value.id, record.value.seq], record.value.type);
      return;
    case "tombstone":
      h.tombstones.put(record.key, record.value);
      return;
    case "counter":
      h.meta.put(record.key, record.value);
      return;
  }
}

/** Writes a marker file and makes it durable, with its directory entry. */
function writeMarker(path: string, content: string): void {
  const fd = openSync(path, "w");
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dir = openSync(join(path, ".."), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
