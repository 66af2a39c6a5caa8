import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { ScopeFilter } from "../../../src/models/scope.ts";
import { withProvenance } from "../../../src/provenance/trust.ts";
import type { EntrySummary } from "../../../src/vault/entry-summary.ts";
import { storedById } from "../../../src/vault/seq-layout.ts";
import type { Staging } from "../../../src/vault/staging.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { vectorRecordId, vectorRecordVector } from "../../../src/vault/vector-records.ts";
import type { IdempotencyRecord } from "../../../src/vault/write-set.ts";

const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/**
 * Reads of the memory slice's tables (src/vault/tables.ts, `memory`): entries, their index keys,
 * vectors and idempotency records, with the writes still committing overlaid (the vault's staging),
 * so the tenant actor reads its own writes. A pending value a read returns is observed: the answer
 * built from it waits for its commit.
 */
export class EntryStore {
  private readonly tables: TableViews<"memory">;
  private readonly staging: Staging;
  /** Every entry's category, tags and time axes in memory (src/vault/entry-summary.ts). */
  readonly summary: EntrySummary;

  constructor(vault: TenantVault) {
    this.tables = vault.tablesOf("memory");
    this.staging = vault.staging;
    this.summary = vault.summary;
  }

  get(id: string): StoredEntry | undefined {
    return this.staging.entry(id) ?? readable(this.committed(id));
  }

  has(id: string): boolean {
    return this.staging.entry(id) !== undefined || this.committed(id) !== undefined;
  }

  /**
   * The committed entry of `id`: by the summary's sequence number (no read of the id → seq
   * record), else by that record (an entry whose erasure is still committing has left the summary).
   */
  private committed(id: string): StoredEntry | undefined {
    const seq = this.summary.seqOf(id);
    return (seq === undefined ? undefined : storedById(this.tables, id, seq)) ?? storedById(this.tables, id);
  }

  /** Committed entries (the B-tree's own count). */
  count(): number {
    return storedCount(this.tables.entries);
  }

  /** Every committed entry, oldest first (index rebuilds). */
  *all(): Generator<StoredEntry> {
    for (const { value } of this.tables.entries.getRange()) yield readable(value)!;
  }

  /**
   * Up to `limit` committed entries after the sequence number `after`, in sequence order: a build
   * in chunks resumes where the last one stopped, no read transaction held in between.
   */
  page(after: number, limit: number): StoredEntry[] {
    const page: StoredEntry[] = [];
    for (const { value } of this.tables.entries.getRange({ start: after + 1, limit }))
      page.push(readable(value)!);
    return page;
  }

  /**
   * Entries whose commit has not landed yet, for building an index. Not an answer, so not
   * observed: results read from the index go through `get`, which is.
   */
  pending(): Generator<StoredEntry> {
    return this.staging.entries();
  }

  vector(id: string): Float32Array | undefined {
    const pending = this.staging.key("v", id);
    if (pending instanceof Float32Array) return pending;
    const seq = this.staging.peek(id)?.seq ?? this.summary.seqOf(id) ?? this.tables.entryIds.get(id);
    const bytes = seq === undefined ? undefined : this.tables.embeddings.getBinary(seq);
    return bytes && vectorRecordId(bytes) === id ? vectorRecordVector(bytes) : undefined;
  }

  /** Every committed vector with its entry id, in write order, of entries after sequence `after`. */
  *vectorRecords(after = 0): Generator<{ id: string; vector(): Float32Array }> {
    for (const { value } of this.tables.embeddings.getRange({ start: after + 1 })) {
      const bytes = value;
      yield { id: vectorRecordId(bytes), vector: () => vectorRecordVector(bytes) };
    }
  }

  /** The idempotency record of `key` if it is younger than `ttlMs`. */
  idempotent(key: string, now: number, ttlMs: number): IdempotencyRecord | undefined {
    const record =
      (this.staging.key("i", key) as IdempotencyRecord | undefined) ?? this.tables.idempotency.get(key);
    return record && now - record.at < ttlMs ? record : undefined;
  }

  /** Every committed idempotency record with its key (erasure looks for the ones answering an erased entry). */
  *idempotencyRecords(): Generator<[string, IdempotencyRecord]> {
    for (const { key, value } of this.tables.idempotency.getRange()) yield [key, value];
  }

  /** Newest first: entries of one category with a sequence number below `before`. */
  scanCategory(category: Category, before = MAX_SEQ): Generator<StoredEntry> {
    return this.fetch(this.summary.newest(this.summary.inCategory(category), before));
  }

  /** Newest first: entries of one category (with the tag, in the scope, if given) below `before`. */
  scanListed(
    category: Category,
    tag?: string,
    scope?: ScopeFilter,
    before = MAX_SEQ,
  ): Generator<StoredEntry> {
    return this.fetch(this.summary.newest(this.summary.listed(category, tag, scope), before));
  }

  /** Newest first: entries carrying `tag` with a sequence number below `before`. */
  scanTag(tag: string, before = MAX_SEQ): Generator<StoredEntry> {
    return this.fetch(this.summary.newest(this.summary.withTag(tag), before));
  }

  /**
   * Entries whose valid_from lies in [fromMs, toMs), in valid-time order, writes still in flight
   * included: found in the summary, each entry then fetched by id.
   */
  scanValid(fromMs: number, toMs: number): Generator<StoredEntry> {
    return this.fetch(this.summary.validIn(fromMs, toMs));
  }

  /** The entries of ids the summary found (a pending one observed, as every read of it is). */
  *fetch(ids: Iterable<string>): Generator<StoredEntry> {
    for (const id of ids) {
      const stored = this.get(id);
      if (stored) yield stored;
    }
  }
}

/** An entry stored before origins were stamped gets one derived from its record (provenance/trust.ts). */
function readable(stored: StoredEntry | undefined): StoredEntry | undefined {
  if (stored === undefined || stored.entry.origin !== undefined) return stored;
  return { ...stored, entry: withProvenance(stored.entry) };
}
