import type { Entry } from "../../../src/models/entry.ts";
import { EntityIndex } from "../../../src/search/controls/entities/entity-index.ts";
import type { EntryStore } from "./entry-store.ts";

/** Entries recognised per build chunk: ~10 µs each, so a chunk holds the actor ~10 ms. */
export const ENTITY_BUILD_CHUNK = 1024;

/**
 * The tenant's entity index (src/search/controls/entities/entity-index.ts), derived from its vault. Nothing
 * is saved: the vault is the only state, so a restart, an erasure and an import cannot leave it
 * stale. After an open it is built off the search path, `ENTITY_BUILD_CHUNK` entries per actor turn
 * (`step`, run by the index flush: index-flush.ts), ~10 µs an entry. Meanwhile the write path keeps
 * it current: a new entry goes in at once (the build's later read of it is skipped: `add` skips
 * ids it has), an erased one leaves it and is remembered, so the build, reading the vault in id
 * order, does not add it back. Searches use it only once `ready` (search.ts).
 */
export class EntityStore {
  private readonly index = new EntityIndex();
  /** The last sequence number the build read; `done` once it read them all. */
  private cursor = 0;
  private done = false;
  /** Erased while the build runs: the build does not add them back. */
  private readonly erased = new Set<string>();

  constructor(private readonly entries: EntryStore) {
    // An empty vault has nothing to read: the write path fills the index from the start.
    if (entries.count() === 0) this.finish();
  }

  /** Whether the build has read every entry (searches follow entities only then). */
  get ready(): boolean {
    return this.done;
  }

  /** The index as far as built (complete once `ready`): reads nothing. */
  partial(): EntityIndex {
    return this.index;
  }

  /** The whole index: the build's rest is read now if it has not finished (the entities route). */
  current(): EntityIndex {
    while (!this.done) this.step(Number.POSITIVE_INFINITY);
    return this.index;
  }

  /** One chunk of the build (up to `limit` entries); answers whether it is finished. */
  step(limit = ENTITY_BUILD_CHUNK): boolean {
    if (this.done) return true;
    const page = this.entries.page(this.cursor, Math.min(limit, 1 << 30));
    for (const stored of page) if (!this.erased.has(stored.entry.id)) this.index.add(stored.entry);
    this.cursor = page.at(-1)?.seq ?? this.cursor;
    if (page.length < Math.min(limit, 1 << 30)) this.finish();
    return this.done;
  }

  private finish(): void {
    // Writes still awaiting their commit went in through `add`; this is only a safety net.
    for (const stored of this.entries.pending()) this.index.add(stored.entry);
    this.done = true;
    this.erased.clear();
  }

  /** A new entry's mentions. */
  add(entry: Entry): void {
    this.erased.delete(entry.id);
    this.index.add(entry);
  }

  /** Erased entries leave the index. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.index.remove(id);
      if (!this.done) this.erased.add(id);
    }
  }

  /** Entries whose erasure failed at commit are still in the vault: they come back. */
  restore(ids: Iterable<string>): void {
    for (const id of ids) {
      const stored = this.entries.get(id);
      this.erased.delete(id);
      if (stored) this.index.add(stored.entry);
    }
  }
}
