import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { NumberedRecord } from "../../../src/models/tenant-export.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { deadLetterKey } from "../ingest/keys.ts";
import { forgetLegacyCheck } from "../memory/legacy-ids.ts";
import { markImport, unmarkImport } from "./import-marker.ts";
import type { TransferTables } from "./transfer-tables.ts";

/**
 * An import's writes into one tenant vault, batch by batch, each in a transaction of its own (the
 * vault's import methods, src/vault/import-records.ts): this side checks and marks. The
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
    return this.vault.importBatch(
      batch.map(({ record }) => record),
      deadLetterKey,
    );
  }

  /** The last batch, then the marker goes: the import is complete. */
  async finish(batch: NumberedRecord[]): Promise<void> {
    await this.writeBatch(batch);
    // Its vectors are the exporting runtime's, and entries it had not embedded yet came without.
    await this.vault.finishImport();
    unmarkImport(this.vault.dir);
  }

  /** Drops whatever an import wrote (the vault was empty before it), then the marker. */
  async abort(): Promise<void> {
    await this.vault.abortImport();
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
      if (ids.has(entry.id) || h.entryIds.doesExist(entry.id))
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
