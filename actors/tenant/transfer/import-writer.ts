import { ValidationFailed } from "../../../src/errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Change } from "../../../src/models/change.ts";
import type { NumberedRecord, VaultRecord } from "../../../src/models/tenant-export.ts";
import { forgetEmbedderStamp } from "../../../src/vault/embedding-records.ts";
import { putEntry } from "../../../src/vault/put-write-set.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { encodeVectorRecord } from "../../../src/vault/vector-records.ts";
import type { DedupeRecord, IdempotencyRecord, Tombstone } from "../../../src/vault/write-set.ts";
import { deadLetterKey } from "../ingest/keys.ts";
import { forgetLegacyCheck } from "../memory/legacy-ids.ts";
import { markImport, unmarkImport } from "./import-marker.ts";
import { clearImported, type TransferTables } from "./transfer-tables.ts";

/**
 * An import's writes into one tenant vault, batch by batch, each in a transaction of its own. The
 * tenant actor owns the vault, so an import never races the vault's own writes; it refuses other
 * work meanwhile, and is restarted afterwards (its vault caches entries and keeps its sequences
 * in memory).
 */
export class ImportWriter {
  constructor(
    private readonly vault: TenantVault,
    private readonly tables: () => TransferTables,
  ) {}

  /** Marks the vault as holding an import in progress (durably, before any of it is written). */
  begin(startedAt: number): void {
    markImport(this.vault.dir, startedAt);
    // Imported entries may carry ids of the earlier rule: the restarted actor checks them all.
    void forgetLegacyCheck(this.vault).catch(() => undefined);
  }

  /**
   * Writes one batch in one transaction: the records, and the index keys of its entries. A batch
   * naming an entry id, an entry sequence or a change position already written is refused whole.
   */
  writeBatch(batch: NumberedRecord[]): Promise<void> {
    const h = this.tables();
    checkUnique(h, batch);
    return this.vault.childTransaction(() => {
      for (const { record } of batch) putRecord(h, record);
    });
  }

  /** The last batch, then the marker goes: the import is complete. */
  async finish(batch: NumberedRecord[]): Promise<void> {
    await this.writeBatch(batch);
    // Its vectors are the exporting runtime's, and entries it had not embedded yet came without.
    const { meta } = this.tables();
    await this.vault.childTransaction(() => forgetEmbedderStamp(meta));
    unmarkImport(this.vault.dir);
  }

  /** Drops whatever an import wrote (the vault was empty before it), then the marker. */
  async abort(): Promise<void> {
    const h = this.tables();
    await this.vault.childTransaction(() => clearImported(h));
    unmarkImport(this.vault.dir);
  }
}

function checkUnique(h: TransferTables, batch: NumberedRecord[]): void {
  const ids = new Set<string>();
  const seqs = new Set<number>();
  const positions = new Set<number>();
  for (const { line, record } of batch) {
    if (record.type === "entry") {
      const { seq, entry } = record.value;
      const slot = seq;
      if (ids.has(entry.id) || h.entries.doesExist(entry.id))
        duplicate(line, `entry ${entry.id} is imported twice`, "/value/entry/id");
      if (seqs.has(slot) || h.rows.doesExist(seq))
        duplicate(line, `sequence ${seq} is used twice`, "/value/seq");
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

function putRecord(h: TransferTables, record: VaultRecord): void {
  switch (record.type) {
    case "entry": {
      const stored = record.value as StoredEntry;
      // The entry and its index record exactly as the vault writes them.
      putEntry(h, stored);
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
      h.dedupe.put(record.key, record.value as DedupeRecord);
      return;
    case "idempotency":
      h.idempotency.put(record.key, record.value as IdempotencyRecord);
      return;
    case "connector_state":
      h.connectorState.put(record.key, record.value);
      return;
    case "change":
      h.changes.put(record.value.seq, record.value as Change);
      h.changesByEntry.put([record.value.id, record.value.seq], record.value.type);
      return;
    case "tombstone":
      h.tombstones.put(record.key, record.value as Tombstone);
      return;
    case "counter":
      h.meta.put(record.key, record.value);
      return;
  }
}
