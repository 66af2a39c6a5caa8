import { searchHybrid } from "../../../src/embedding/hybrid-search.ts";
import { type StoredEntry, type TimeFilter, visible } from "../../../src/memory/temporal.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type { SearchEntries, SearchResult } from "../../../src/protocols/tenant-protocol.ts";
import type { EntryStore } from "./entry-store.ts";
import type { MemoryIndexes } from "./indexes.ts";
import { type ControlContext, candidatesFor, controlledPage, controlledResults } from "./search-controls.ts";

type Filter = ((id: string) => boolean) & { view(id: string): Entry | undefined };

/**
 * Search over a tenant's memory: the one hybrid search (src/embedding/hybrid-search.ts) with the
 * tenant's filter (categories, tags, both time axes) and the embedder's fusion profile (the
 * message's), or, without text or vector, the newest entries that pass the filter.
 */
export class MemorySearch {
  constructor(
    private readonly entries: EntryStore,
    private readonly indexes: MemoryIndexes,
  ) {}

  search(msg: SearchEntries): SearchResult[] {
    const accept = this.filterOf(msg);
    const text = msg.text?.trim() ? msg.text : undefined;
    if (!text && !msg.vector)
      return controlledPage(this.newest(msg, accept), msg, this.controlContext(accept));
    const query = { text, vector: msg.vector, k: candidatesFor(msg), accept };
    const hits = searchHybrid(this.indexes, query, { profile: msg.fusion });
    return controlledResults(hits, { ...msg, text }, this.controlContext(accept));
  }

  /** What the search controls read: the filter's views and the indexes. */
  private controlContext(accept: Filter): ControlContext {
    const { vectors } = this.indexes;
    return { view: (id) => accept.view(id), vectors, lexical: () => this.indexes.lexical() };
  }

  /** A filter-only search: newest first across the requested categories, score 0. */
  private newest(msg: SearchEntries, accept: Filter): SearchResult[] {
    const results: SearchResult[] = [];
    const scans = msg.categories.map((c) => this.entries.scanCategory(c));
    for (const stored of mergeNewestFirst(scans)) {
      if (!accept(stored.entry.id)) continue;
      results.push({ entry: accept.view(stored.entry.id)!, score: 0, scores: { vector: 0, lexical: 0 } });
      if (results.length >= msg.limit) break;
    }
    return results;
  }

  /** Whether an id passes the query's filters, and its view; each id is checked once per search. */
  private filterOf(msg: SearchEntries): Filter {
    const categories = new Set<string>(msg.categories);
    const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
    const views = new Map<string, Entry | undefined>();
    const check = (id: string): Entry | undefined => {
      const stored = this.entries.get(id);
      if (!stored || !categories.has(stored.entry.category)) return undefined;
      const view = visible(stored, time);
      if (!view) return undefined;
      const tags = view.tags ?? [];
      if (!msg.tags.every((t) => tags.includes(t))) return undefined;
      if (msg.tagsAny.length > 0 && !msg.tagsAny.some((t) => tags.includes(t))) return undefined;
      return view;
    };
    const accept = ((id: string) => {
      if (!views.has(id)) views.set(id, check(id));
      return views.get(id) !== undefined;
    }) as Filter;
    accept.view = (id) => (views.has(id) ? views.get(id) : check(id));
    return accept;
  }
}

/** Merges newest-first scans (each ordered by descending seq) into one newest-first stream. */
function* mergeNewestFirst(scans: Generator<StoredEntry>[]): Generator<StoredEntry> {
  const heads = scans.map((s) => s.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i]!;
      if (!h.done && (best < 0 || h.value.seq > (heads[best]!.value as StoredEntry).seq)) best = i;
    }
    if (best < 0) return;
    yield heads[best]!.value as StoredEntry;
    heads[best] = scans[best]!.next();
  }
}
