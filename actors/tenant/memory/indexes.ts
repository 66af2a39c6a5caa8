import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Entry } from "../../../src/models/entry.ts";
import type { HybridIndexes } from "../../../src/search/fusion/hybrid-search.ts";
import type { LexicalIndex } from "../../../src/search/lexical/lexical-index.ts";
import {
  isVectorIndexFile,
  TENANT_INDEX_FILE,
  TENANT_INDEX_TUNING,
  TENANT_LEXICAL_FILE,
} from "../../../src/search/vector/index-tuning.ts";
import { metaPathOf } from "../../../src/search/vector/vector-files.ts";
import { VectorIndex, VectorIndexUnreadable } from "../../../src/search/vector/vector-index.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { EntityStore } from "./entity-store.ts";
import type { EntryStore } from "./entry-store.ts";
import { LexicalStore } from "./lexical-store.ts";

/**
 * A tenant's search indexes, derived from its vault: the vector index (a usearch graph saved beside
 * the vault, caught up on open) and the BM25 index (kept current as entries are written, saved as a
 * full file and a journal: lexical-store.ts). Both are saved with a watermark of how far they hold
 * the vault, so an open reads the saved files and what was written after them, never every entry.
 * The entity index (entity-store.ts) is not saved: it is built after the open, a chunk per flush.
 */
export class MemoryIndexes implements HybridIndexes {
  readonly vectors: VectorIndex;
  /** Entities and the entries that mention them (entity-store.ts). */
  readonly entities: EntityStore;
  private readonly lexicalStore: LexicalStore;

  constructor(
    private readonly vault: TenantVault,
    private readonly entries: EntryStore,
    dims: number,
    /** The vault's vectors are being dropped (another embedder made them): the index starts empty. */
    reset = false,
  ) {
    // Graph insertion never runs on the write path: tail vectors move into the graph in rounds
    // built on the builder's thread, or in chunks between messages (index-flush.ts), and until
    // then they are searched exactly.
    // Files of another tuning are left behind: removed, to be rebuilt.
    removeOtherIndexFiles(vault.dir, reset);
    this.vectors = openVectors(vault.dir, dims);
    this.lexicalStore = new LexicalStore(vault, entries);
    this.entities = new EntityStore(entries);
    // The old vectors stay readable until the reset commits: none is caught up.
    if (!reset) this.catchUp();
    // A new entry is searchable before its commit; should the commit fail, its vector goes. (Its
    // words may stay in the BM25 index, which never removes documents: search answers only ids the
    // vault holds, and a retry of the same content has the same id.)
    vault.onWriteFailed((ids) => {
      for (const id of ids) this.vectors.remove(id);
    });
  }

  /**
   * Vectors committed after the index file was last saved (e.g. after a kill -9) are added back.
   * Only those after the saved watermark are read (vectors are keyed by sequence), so an open reads
   * the index files and the few newest vectors, not every vector of the vault.
   */
  private catchUp(): void {
    // The vectors file says what the saved index holds (its graph may not exist yet).
    const saved = existsSync(metaPathOf(join(this.vault.dir, TENANT_INDEX_FILE)));
    const after = saved ? this.vault.indexedThrough(TENANT_INDEX_FILE) : 0;
    for (const record of this.entries.vectorRecords(after)) {
      if (!this.vectors.has(record.id)) this.vectors.add(record.id, record.vector());
    }
  }

  /** The BM25 index: current from the open on (lexical-store.ts says when it is made from every entry). */
  lexical(): LexicalIndex {
    return this.lexicalStore.current();
  }

  /** A new entry is searchable at once: its vector pending (searched exactly), its words indexed. */
  add(entry: Entry, vector: Float32Array | undefined): void {
    if (vector) this.vectors.add(entry.id, vector);
    this.lexicalStore.add(entry);
    this.entities.add(entry);
  }

  /** Erased entries leave the indexes at once (the vault's compaction then rebuilds them from disk). */
  forget(ids: Set<string>): void {
    for (const id of ids) this.vectors.remove(id);
    // The saved words of erased entries must not come back (compaction removes the files too).
    this.lexicalStore.forget();
    this.entities.forget(ids);
  }

  /** Entries whose erasure failed at commit are still in the vault: their vectors come back. */
  restore(ids: Set<string>): void {
    for (const id of ids) {
      const vector = this.entries.vector(id);
      if (vector) this.vectors.add(id, vector);
    }
    this.entities.restore(ids);
  }

  /** Moves up to `limit` pending vectors into the graph; returns how many are still pending. */
  flush(limit = Number.POSITIVE_INFINITY): number {
    this.vectors.flush(limit);
    this.idle();
    return this.vectors.pending;
  }

  /** Between messages: the BM25 journal is appended if enough documents wait. */
  idle(): void {
    this.lexicalStore.idle();
  }

  /** Saves the indexes, then records how far they hold the vault (the vault closes after). */
  close(): void {
    const through = this.vault.currentSeq();
    try {
      // Should the save fail (a full disk), the graph is still released; the watermark stays behind.
      this.vectors.save();
    } finally {
      this.vectors.close();
    }
    void this.vault.setIndexedThrough(TENANT_INDEX_FILE, through).catch(() => undefined);
    this.lexicalStore.close();
  }
}

/**
 * The tenant's vector index, its files mapped; unusable files (corrupt, cut short, left by a crash
 * in the middle of an in-place change) are removed and the index starts empty, to be caught up
 * from every vector of the vault (no saved file: `catchUp` reads from the start).
 */
function openVectors(dir: string, dims: number): VectorIndex {
  const open = () => VectorIndex.open({ file: join(dir, TENANT_INDEX_FILE), dims, ...TENANT_INDEX_TUNING });
  try {
    return open();
  } catch (err) {
    if (!(err instanceof VectorIndexUnreadable)) throw err;
    removeOtherIndexFiles(dir, true);
    return open();
  }
}

/** Index files of an earlier tuning (`vectors*.usearch*` under another name), or all of them (`all`). */
function removeOtherIndexFiles(dir: string, all: boolean): void {
  for (const file of readdirSync(dir)) {
    const current = file.startsWith(TENANT_INDEX_FILE) && !all;
    if (isVectorIndexFile(file) && !current && !file.startsWith(TENANT_LEXICAL_FILE))
      rmSync(join(dir, file), { force: true });
  }
}
