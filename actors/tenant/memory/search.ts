import type { TimeFilter } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import type { Entry } from "../../../src/models/entry.ts";
import type { SearchEntries, SearchResult } from "../../../src/protocols/tenant-protocol.ts";
import { atLeast } from "../../../src/provenance/trust.ts";
import { withEpisodes } from "../../../src/search/controls/context/episodes.ts";
import { searchWithEntities } from "../../../src/search/controls/entities/entity-hops.ts";
import type { Span } from "../../../src/search/controls/time/calendar.ts";
import { pastSpan, visibleThen } from "../../../src/search/controls/time/past-visibility.ts";
import { timeBoosted, windowCandidates } from "../../../src/search/controls/time/time-boost.ts";
import { searchHybrid } from "../../../src/search/fusion/hybrid-search.ts";
import { analyseQuery } from "../../../src/search/query-analysis.ts";
import { categoryMask, type SummaryFilter } from "../../../src/vault/entry-summary.ts";
import type { EntryStore } from "./entry-store.ts";
import type { MemoryIndexes } from "./indexes.ts";
import {
  type ControlContext,
  candidatesFor,
  controlledPage,
  controlledResults,
  spreadPoolFor,
} from "./search-controls.ts";

type Filter = ((id: string) => boolean) & { view(id: string): Entry | undefined };

/**
 * Search over a tenant's memory: the one hybrid search (src/search/fusion/hybrid-search.ts) with the
 * tenant's filter (categories, tags, both time axes) and the embedder's fusion profile (the
 * message's), or, without text or vector, the newest entries that pass the filter.
 */
export class MemorySearch {
  constructor(
    private readonly entries: EntryStore,
    private readonly indexes: MemoryIndexes,
  ) {}

  search(msg: SearchEntries): SearchResult[] {
    // Analysed once; the fused search and every control after it read this (query-analysis.ts).
    const analysis = analyseQuery(msg);
    const { text, time } = analysis;
    // The query's time (src/search/controls/time/): a question about the past also sees what was valid then.
    const accept = this.filterOf(msg, pastSpan(time, msg.validAt));
    const controlled = { ...msg, query: analysis };
    if (!text && !msg.vector)
      return controlledPage(this.newest(msg, accept), controlled, this.controlContext(accept));
    // The wider pool only serves the source spread, which needs text to anchor on.
    const keep = text ? spreadPoolFor(msg) : undefined;
    const query = { analysis, vector: msg.vector, k: candidatesFor(msg), keep, accept };
    // A time window's entries that share a word with the query join the candidates (time-boost.ts).
    const lexicalScore = time.window ? this.indexes.lexical().scorer(text!) : undefined;
    const timed = windowCandidates(time, (f, t) => this.entries.summary.validIn(f, t), accept, lexicalScore);
    const run = (extra: readonly string[]) =>
      searchHybrid(this.indexes, { ...query, extra: [...extra, ...timed] }, { profile: msg.fusion });
    // The query's entities pull in the entries linked to them, in up to two hops (entity-hops.ts).
    // Only once the entity index is built (entity-store.ts): a search never waits for the build.
    const hops = text && msg.controls?.entities !== false;
    const entities = this.indexes.entities;
    const found =
      hops && entities.ready ? searchWithEntities(entities.partial(), text, accept, run) : run([]);
    // Entries written together lend each other a bounded share of their scores (episodes.ts).
    const hits = withEpisodes(timeBoosted(found, time, accept.view), accept.view, msg.controls?.context);
    const results = controlledResults(hits, controlled, this.controlContext(accept));
    if (hops && !entities.ready) for (const r of results) if (r.explain) r.explain.entities = "building";
    return results;
  }

  /** What the search controls read: the filter's views and the indexes. */
  private controlContext(accept: Filter): ControlContext {
    const { vectors } = this.indexes;
    const objectOf = (id: string) => this.indexes.entities.partial().objectOf(id);
    return { view: (id) => accept.view(id), vectors, lexical: () => this.indexes.lexical(), objectOf };
  }

  /** A filter-only search: newest first across the requested categories, score 0. */
  private newest(msg: SearchEntries, accept: Filter): SearchResult[] {
    const results: SearchResult[] = [];
    const summary = this.entries.summary;
    for (const id of summary.newest(summary.visibleTo(summaryFilter(msg)))) {
      const entry = accept.view(id);
      if (!entry) continue;
      results.push({ entry, score: 0, scores: { vector: 0, lexical: 0 } });
      if (results.length >= msg.limit) break;
    }
    return results;
  }

  /**
   * Whether an id passes the query's filters, and its view. The filters are checked on the entry
   * summary (categories, tags, both time axes: no entry decoded); only an entry that passes is
   * read, for its view, once per search.
   */
  private filterOf(msg: SearchEntries, during?: Span): Filter {
    const filter = { ...summaryFilter(msg), validDuring: during };
    // Only decisions and exceptions carry a status: a status filter leaves the others out at once.
    const mask = categoryMask(msg.status ? msg.categories.filter(hasStatus) : msg.categories);
    const time: TimeFilter = { asOf: msg.asOf, validAt: msg.validAt };
    const summary = this.entries.summary;
    const views = new Map<string, Entry | undefined>();
    const view = (id: string): Entry | undefined => {
      if (views.has(id)) return views.get(id);
      const stored = summary.accepts(id, filter, mask) ? this.entries.get(id) : undefined;
      const seen = stored && visibleThen(stored, time, during);
      const kept = seen && passesEntryFilters(seen, msg) ? seen : undefined;
      views.set(id, kept);
      return kept;
    };
    // Status and trust are the entry's own (no summary holds them): read only for a search asking.
    const accept = (
      msg.status === undefined && msg.minTrust === undefined
        ? (id: string) => summary.accepts(id, filter, mask)
        : (id: string) => view(id) !== undefined
    ) as Filter;
    accept.view = view;
    return accept;
  }
}

const hasStatus = (category: Category) => category === "decision" || category === "exception";

/** The filters only the entry itself answers: its status, its trust. */
function passesEntryFilters(entry: Entry, msg: SearchEntries): boolean {
  if (msg.status !== undefined && entry.status !== msg.status) return false;
  return msg.minTrust === undefined || atLeast(entry.trust, msg.minTrust);
}

/** A search's filters as the entry summary checks them. */
function summaryFilter(msg: SearchEntries): SummaryFilter {
  return {
    categories: msg.categories,
    tags: msg.tags,
    tagsAny: msg.tagsAny,
    asOf: msg.asOf,
    validAt: msg.validAt,
    scope: msg.scope,
  };
}
