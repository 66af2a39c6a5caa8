import type { Entry } from "../../../src/models/entry.ts";
import { EntityIndex } from "../../../src/search/entities/entity-index.ts";
import type { EntryStore } from "./entry-store.ts";

/**
 * The tenant's entity index (src/search/entities/entity-index.ts), derived from its vault: made
 * from every entry at its first use after an open (an import restarts the actor, so it is made
 * from the imported vault), then kept current by the write path, and an erased entry leaves it at
 * once. Nothing is saved: the vault is the only state, so a restart, an erasure and an import
 * cannot leave it stale. Building costs one recognition per entry (~10 µs).
 */
export class EntityStore {
  private index: EntityIndex | undefined;

  constructor(private readonly entries: EntryStore) {}

  /** The index, made from every entry at its first use. */
  current(): EntityIndex {
    if (!this.index) {
      const index = new EntityIndex();
      for (const stored of this.entries.all()) index.add(stored.entry);
      // Writes still awaiting their commit are not in `all()` yet; `add` skips ids it already has.
      for (const stored of this.entries.pending()) index.add(stored.entry);
      this.index = index;
    }
    return this.index;
  }

  /** A new entry's mentions (nothing before the first use: that use reads every entry). */
  add(entry: Entry): void {
    this.index?.add(entry);
  }

  /** Erased entries leave the index. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.index?.remove(id);
  }

  /** Entries whose erasure failed at commit are still in the vault: they come back. */
  restore(ids: Iterable<string>): void {
    for (const id of ids) {
      const stored = this.entries.get(id);
      if (stored) this.index?.add(stored.entry);
    }
  }
}
