import type { BackgroundEmbedding } from "../../../src/embedding/embed-scheduler.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import type { EntryDraft } from "../../../src/models/entry.ts";
import type { Provenance } from "../../../src/models/origin.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { GraphBuilder } from "../../../src/search/vector/graph-builder.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import { Tombstones } from "../erase/tombstones.ts";
import { TenantMerges } from "../merges/merges.ts";
import type { BatchItem } from "./batch.ts";
import { checkDraft } from "./draft-check.ts";
import { EmbedBacklog, type EmbeddedItem } from "./embed-backlog.ts";
import { checkEmbedder, type EmbedderCheck } from "./embedder-check.ts";
import type { Sha8 } from "./entry-id.ts";
import { EntryStore } from "./entry-store.ts";
import { IndexFlush } from "./index-flush.ts";
import { MemoryIndexes } from "./indexes.ts";
import { MemoryQuery } from "./query.ts";
import { MemorySearch } from "./search.ts";
import type { EntryLookup } from "./side-effects.ts";
import { SimilarWrites } from "./similar-write.ts";
import { MemoryWriter, type Prepared } from "./writer.ts";

export interface MemoryOptions {
  tenantId: string;
  vault: TenantVault;
  clock: Clock;
  dims: number;
  hash?: Sha8;
  /** Sends `index.flush` to the tenant actor itself (none: vectors wait for an explicit flush). */
  tellSelf?: () => void;
  /** The runtime's background embedder (none: no backlog, vectors come with the writes only). */
  background?: Background;
  /** Where the vector graph is built (none: in place, on the actor's thread: index-flush.ts). */
  graphBuilder?: GraphBuilder;
}

/** The background embedder, and how its vectors reach the tenant actor (`embed.store`). */
export interface Background {
  embedding: BackgroundEmbedding;
  storeVectors(items: EmbeddedItem[], vectors: Float32Array[]): Promise<unknown>;
}

/** What an event's entry does to other entries besides its own links (EventEntry.effects). */
export interface Effects {
  stored: StoredEntry;
  updates: StoredEntry[];
  changes: ChangeDraft[];
}

/** A source event's entry (the ingest slice's ask): who wrote it, and what goes with it. */
export interface EventEntry {
  draft: EntryDraft;
  /** `connector:<source>`. */
  by: string;
  /** The event's origin (provenance/source-origin.ts): verified, or the bridge's. */
  provenance: Provenance;
  vector?: Float32Array;
  now: number;
  /**
   * What the write does besides, given the entry as prepared and the updates it implies already
   * (its object's timeline, actors/tenant/ingest/timeline.ts): the entry as it is stored, and the
   * other entries it changes (an update of an entry listed already takes its place).
   */
  effects?: (stored: StoredEntry, updates: StoredEntry[]) => Effects;
  /** The ingest records written in the same transaction as the entry, given its id. */
  alongside?: (id: string) => Partial<WriteSet>;
  /** How entries are read (a delivery's own writes overlaid: actors/tenant/ingest/delivery-set.ts). */
  lookup?: EntryLookup;
}

/** A source event's entry, prepared and not written: its write set, and the new entry it brings. */
export interface EventWrite {
  id: string;
  set: WriteSet;
  /** None: the draft is an entry stored already. */
  fresh?: BatchItem;
}

/**
 * The memory slice of the tenant actor (so every method runs serially): its tables' reads
 * (entry-store.ts), writes (writer.ts), reads by id and pages (query.ts), hybrid search
 * (search.ts) and the indexes they share (indexes.ts), moved into the ANN graph between messages
 * (index-flush.ts). handlers.ts answers the memory part of the tenant protocol.
 */
export class TenantMemory {
  readonly entries: EntryStore;
  readonly indexes: MemoryIndexes;
  readonly writer: MemoryWriter;
  readonly query: MemoryQuery;
  readonly search: MemorySearch;
  readonly flush: IndexFlush;
  /** Single writes that notice near-duplicates (similar-write.ts). */
  readonly similar: SimilarWrites;
  /** Merges of near-duplicates, un-merges and the review band (actors/tenant/merges/). */
  readonly merges: TenantMerges;
  /** Entries waiting for their vector, worked on by the background embedder. */
  readonly backlog: EmbedBacklog | undefined;

  constructor(opts: MemoryOptions) {
    const { background, vault } = opts;
    this.entries = new EntryStore(vault);
    // Before the index opens: vectors of another embedder are dropped, not loaded.
    const check = background ? checkEmbedder(vault, background.embedding, opts.dims) : undefined;
    this.indexes = new MemoryIndexes(vault, this.entries, opts.dims, check?.reset);
    // What the check writes is not committed yet, so the index's catch-up did not see it.
    for (const id of check?.written?.dropped ?? []) this.indexes.vectors.remove(id);
    for (const [id, vector] of check?.written?.filled ?? []) this.indexes.vectors.add(id, vector);
    this.query = new MemoryQuery(this.entries, new Tombstones(vault));
    this.search = new MemorySearch(this.entries, this.indexes);
    this.flush = new IndexFlush(
      this.indexes,
      opts.clock,
      opts.tellSelf ?? (() => undefined),
      opts.graphBuilder,
    );
    this.backlog = background && check && this.backlogOf(opts, background, check);
    const parts = { entries: this.entries, indexes: this.indexes, backlog: this.backlog };
    this.writer = new MemoryWriter({ ...opts, ...parts });
    this.merges = new TenantMerges(vault, this.entries, opts.clock);
    const similarParts = {
      writer: this.writer,
      entries: this.entries,
      indexes: this.indexes,
      merges: this.merges,
    };
    this.similar = new SimilarWrites({ ...opts, ...similarParts });
  }

  private backlogOf(opts: MemoryOptions, background: Background, check: EmbedderCheck): EmbedBacklog {
    return new EmbedBacklog({
      tenantId: opts.tenantId,
      vault: opts.vault,
      clock: opts.clock,
      indexes: this.indexes,
      embedding: background.embedding,
      check,
      storeVectors: background.storeVectors,
      onIndexed: () => this.flush.schedule(),
    });
  }

  /**
   * An entry from a source event's draft: checked against its category's schema (an API body is
   * checked by its route), then prepared like any other, with `alongside`'s records in its set. A
   * draft identical to a stored entry is that entry (`alongside` is still in the set). A refusal
   * throws the AppError the ingest slice dead-letters. Nothing is written: the ingest slice gathers
   * a delivery's sets into one (delivery-set.ts) and writes it as a batch (`writer.commitBatch`).
   */
  eventWrite(e: EventEntry): EventWrite {
    checkDraft(e.draft);
    const options = { provenance: e.provenance, lookup: e.lookup };
    const prepared = this.writer.prepare(e.draft, e.by, e.now, options);
    const fresh = "stored" in prepared ? withEffects(prepared, e.effects) : undefined;
    const id = "stored" in prepared ? prepared.stored.entry.id : prepared.existing.entry.id;
    const set = fresh ? this.writer.writeSetOf(fresh, e.vector) : emptySet({});
    Object.assign(set, e.alongside?.(id));
    return fresh ? { id, set, fresh: { prepared: fresh, vector: e.vector } } : { id, set };
  }

  /** A source event's entry (`eventWrite`) written at once, in a set of its own. */
  entryFromEvent(e: EventEntry): { id: string; committed: Promise<void> } {
    const { id, set, fresh } = this.eventWrite(e);
    return { id, committed: this.writer.commitBatch(set, fresh ? [fresh] : []) };
  }

  /** Saves the indexes (the vault closes after). */
  close(): void {
    this.backlog?.close();
    this.flush.cancel();
    this.indexes.close();
    this.writer.close();
  }
}

/** The prepared write with what its effects add: an update of an entry it changes already replaces that one. */
function withEffects(prepared: Prepared, effects: EventEntry["effects"]): Prepared {
  if (!effects) return prepared;
  const added = effects(prepared.stored, prepared.updates);
  const ids = new Set(added.updates.map((u) => u.entry.id));
  return {
    stored: added.stored,
    updates: [...prepared.updates.filter((u) => !ids.has(u.entry.id)), ...added.updates],
    changes: [...prepared.changes, ...added.changes],
  };
}
