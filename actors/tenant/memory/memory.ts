import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type {
  CreateEntry,
  ListEntries,
  SearchEntries,
  SearchResult,
} from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { TenantVault, WriteSet } from "../../../src/vault/tenant-vault.ts";
import type { Sha8 } from "./entry-id.ts";
import { MemoryIndexes } from "./indexes.ts";
import { type EntryPageOut, MemoryQuery } from "./query.ts";
import { MemorySearch } from "./search.ts";
import { type EntryLookup, MemoryWriter, type Prepared, type Written } from "./writer.ts";

export { IDEMPOTENCY_TTL_MS, type Prepared, type Written } from "./writer.ts";

export interface MemoryOptions {
  tenantId: string;
  vault: TenantVault;
  clock: Clock;
  dims: number;
  hash?: Sha8;
}

/**
 * A tenant's typed memory, owned by the tenant actor (so every method runs serially): writes
 * (actors/memory/writer.ts), reads (query.ts), hybrid search (search.ts) and the indexes they share
 * (indexes.ts). Each part can be profiled and tested alone; this class only wires them together.
 */
export class TenantMemory {
  readonly indexes: MemoryIndexes;
  readonly writer: MemoryWriter;
  readonly query: MemoryQuery;
  private readonly searcher: MemorySearch;

  constructor(opts: MemoryOptions) {
    this.indexes = new MemoryIndexes(opts.vault, opts.dims);
    this.writer = new MemoryWriter({ ...opts, indexes: this.indexes });
    this.query = new MemoryQuery(opts.vault);
    this.searcher = new MemorySearch(opts.vault, this.indexes);
  }

  /** The vector index (health reports its size and pending vectors). */
  get index() {
    return this.indexes.vectors;
  }

  create(msg: CreateEntry): Written {
    return this.writer.create(msg);
  }

  prepare(draft: CreateEntry["draft"], createdBy: string, now: number, lookup?: EntryLookup) {
    return this.writer.prepare(draft, createdBy, now, lookup);
  }

  writeSetOf(prepared: Prepared, vector?: Float32Array): WriteSet {
    return this.writer.writeSetOf(prepared, vector);
  }

  commit(set: WriteSet, prepared: Prepared | undefined, vector?: Float32Array): Promise<void> {
    return this.writer.commit(set, prepared, vector);
  }

  retract(category: Category, id: string, by: string): Written {
    return this.writer.retract(this.query.stored(category, id), category, by);
  }

  get(category: Category, id: string, includeEmbedding: boolean): Entry {
    return this.query.get(category, id, includeEmbedding);
  }

  stored(category: Category, id: string): StoredEntry {
    return this.query.stored(category, id);
  }

  list(msg: ListEntries): EntryPageOut {
    return this.query.list(msg);
  }

  search(msg: SearchEntries): SearchResult[] {
    return this.searcher.search(msg);
  }

  /** Erased entries leave the indexes at once. */
  forget(ids: Set<string>): void {
    this.indexes.forget(ids);
  }

  /** Moves up to `limit` pending vectors into the graph; returns how many are still pending. */
  flushIndex(limit = Number.POSITIVE_INFINITY): number {
    return this.indexes.flush(limit);
  }

  close(): void {
    this.indexes.close();
  }
}
