import { Gone, NotFound } from "../../../src/errors/domain-errors.ts";
import { decodeCursor, encodeCursor } from "../../../src/memory/cursor.ts";
import { type StoredEntry, type TimeFilter, visible } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type { ListEntries } from "../../../src/protocols/tenant-protocol.ts";
import { atLeast } from "../../../src/provenance/trust.ts";
import type { Tombstones } from "../erase/tombstones.ts";
import type { EntryStore } from "./entry-store.ts";

export interface EntryPageOut {
  items: Entry[];
  next_cursor: string | null;
}

/** Reads of a tenant's entries: one by id, and newest-first pages through a bi-temporal view. */
export class MemoryQuery {
  constructor(
    private readonly entries: EntryStore,
    private readonly tombstones: Tombstones,
  ) {}

  get(category: Category, id: string, includeEmbedding: boolean): Entry {
    return this.present(this.stored(category, id).entry, includeEmbedding);
  }

  /** The stored entry of that category; 410 if it was erased, 404 if there is none. */
  stored(category: Category, id: string): StoredEntry {
    const stored = this.entries.get(id);
    if (stored && stored.entry.category === category) return stored;
    const tombstone = this.tombstones.of(id);
    if (tombstone?.category === category)
      throw new Gone(`${category} ${id} was erased at ${tombstone.erased_at}`);
    throw new NotFound(`no ${category} ${id} in this tenant`);
  }

  list(msg: ListEntries): EntryPageOut {
    const before = msg.cursor === undefined ? undefined : decodeCursor(msg.cursor);
    const scan = this.entries.scanListed(msg.category, msg.tag, msg.scope, before);
    const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
    const page: Array<{ seq: number; entry: Entry }> = [];
    for (const stored of scan) {
      if (stored.entry.category !== msg.category) continue;
      const view = msg.everything ? stored.entry : visible(stored, time);
      if (!view) continue;
      if (!msg.everything && msg.category === "outcome" && !this.decisionResolved(view)) continue;
      if (msg.status !== undefined && view.status !== msg.status) continue;
      if (msg.minTrust !== undefined && !atLeast(view.trust, msg.minTrust)) continue;
      page.push({ seq: stored.seq, entry: view });
      if (page.length > msg.limit) break;
    }
    const more = page.length > msg.limit;
    const items = page.slice(0, msg.limit);
    return {
      items: items.map((p) => this.present(p.entry, msg.includeEmbedding)),
      next_cursor: more ? encodeCursor(items[items.length - 1]!.seq) : null,
    };
  }

  /** The entry as answered: with its stored vector only when asked for. */
  present(entry: Entry, includeEmbedding: boolean): Entry {
    if (!includeEmbedding) return entry;
    const vec = this.entries.vector(entry.id);
    return { ...entry, embedding: vec ? Array.from(vec, round6) : [] };
  }

  private decisionResolved(outcome: Entry): boolean {
    const decision = this.entries.get(String(outcome.decision_id));
    return decision?.entry.status === "resolved";
  }
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
