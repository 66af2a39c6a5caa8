import { mkdirSync } from "node:fs";
import type { Database, RootDatabase, Transaction } from "lmdb";
import type { Change } from "../models/change.ts";
import type { StoredEntry } from "../models/stored-entry.ts";
import type { VaultRecord } from "../models/tenant-export.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { ChangeLog } from "./change-log.ts";
import { Counters } from "./counters.ts";
import { forgetEmbedderStamp } from "./embedding-records.ts";
import { entryRow } from "./entry-rows.ts";
import { EntrySummary } from "./entry-summary.ts";
import { putErasure } from "./erasure.ts";
import {
  clearImported,
  type DeadLetterKeyOf,
  type ImportTables,
  openImportTables,
  putImported,
} from "./import-records.ts";
import { currentRows, lastSeq, migrateEntryRows, migrateVectorKeys } from "./migrations.ts";
import { putOutboundRecords, putWriteSet } from "./put-write-set.ts";
import { migrateSeqLayout, storedById } from "./seq-layout.ts";
import { type StagedSet, Staging } from "./staging.ts";
import { StateSeqs } from "./state-seqs.ts";
import { guardCommitRejections, observeCommits, storageFault } from "./storage-faults.ts";
import { StorageGauge, type StorageLimits } from "./storage-gauge.ts";
import { type Group, openEnvironment, openGroup, type TablesOf, type TableViews } from "./tables.ts";
import { KeyTooLong, MAX_KEY_BYTES, onlyFrees, oversizedKey, type WriteSet } from "./write-set.ts";

export { KeyTooLong, type WriteSet } from "./write-set.ts";

/** A meta key a write of no changes puts, so the write has one promise for the commit of all its puts. */
const COMMIT_MARKER_KEY = "~commit";

/**
 * Wraps each write set's local commit (`commit`), the one way to observe or refuse a vault's
 * writes: cluster mode refuses the write of a tenant not served here before anything is committed,
 * and appends the committed set to the partition changelog before the write resolves
 * (src/cluster/changelog.ts). Every write, the vault's own included, goes through it.
 */
export type WriteThrough = (set: WriteSet, commit: (set: WriteSet) => Promise<void>) => Promise<void>;

export interface VaultOptions extends StorageLimits {
  /** Called with a write's changes once they are committed (the live feed of the tenant). */
  onCommitted?: (changes: Change[]) => void;
  /** Around each write's local commit; the commit alone when absent (a single node, a replay). */
  writeThrough?: WriteThrough;
  /** Transaction time of changes whose write set names none. */
  now?: () => number;
  /** Times each write set's commit (in a span under the message that wrote it) and counts its entries. */
  telemetry?: Telemetry;
}

/** lmdb-js's read cache of a `cache: true` database (not part of its typed API). */
function entryCache(db: Database<StoredEntry, number>): { delete(key: number): void } | undefined {
  return (db as unknown as { cache?: { delete(key: number): void } }).cache;
}

/**
 * One LMDB environment per tenant (ARCHITECTURE, Storage): its tables (tables.ts), written whole
 * by write sets, each in one transaction. Writes are batched by lmdb-js into shared commits
 * (group commit); until its commit lands a write is served from `staging`, so the owning actor
 * reads its own writes. The vault keeps what every write touches (sequences, the change log, the
 * counters); the tenant actor's features read their own tables (`tablesOf`).
 */
export class TenantVault {
  private readonly root: RootDatabase;
  private readonly tables: { [G in Exclude<Group, "outbound">]: TablesOf<G> };
  private outbound: TablesOf<"outbound"> | undefined;
  /** An import's own handles, without read cache (opened by its first batch). */
  private imported: ImportTables | undefined;
  /** Writes queued and not committed yet, as features read them. */
  readonly staging = new Staging();
  /** Every entry's index record in memory, staged writes included (entry-summary.ts). */
  readonly summary = new EntrySummary();
  readonly changes: ChangeLog;
  readonly counters: Counters;
  private readonly stateSeqs: StateSeqs;
  private seq: number;
  private closed = false;
  private readonly gauge: StorageGauge;
  /** Write sets queued and not yet settled (committed or failed). */
  private inFlight = 0;
  /** A commit failed: the counters are recounted from the entries once every write has settled. */
  private recountDue = false;
  private readonly failureListeners: Array<(ids: string[]) => void> = [];

  constructor(
    readonly dir: string,
    private readonly options: VaultOptions = {},
  ) {
    mkdirSync(dir, { recursive: true });
    guardCommitRejections();
    this.root = openEnvironment(dir);
    observeCommits(this.root);
    this.gauge = new StorageGauge(this.root, options.maxBytes ?? Number.POSITIVE_INFINITY, options.disk);
    this.tables = {
      memory: openGroup(this.root, "memory"),
      ingest: openGroup(this.root, "ingest"),
      erase: openGroup(this.root, "erase"),
      log: openGroup(this.root, "log"),
      vault: openGroup(this.root, "vault"),
    };
    const { memory, ingest, log, vault } = this.tables;
    this.changes = new ChangeLog(log);
    this.counters = new Counters(this.root, vault.meta, memory.entries);
    this.stateSeqs = new StateSeqs(ingest.connectorState);
    // First: the migrations below read entries by sequence and ids through their id → seq records.
    migrateSeqLayout(this.root, memory, vault.meta);
    migrateEntryRows(this.root, memory);
    this.seq = lastSeq(vault.meta, memory);
    migrateVectorKeys(this.root, memory);
    this.counters.backfill();
    for (const [key, row] of currentRows(this.root, memory)) this.summary.upsert(key, row);
  }

  /**
   * A feature's own tables, to read: every change goes through a write set (`write`) or a named
   * method of the vault. The outbound tables are opened on first use, so tenants without
   * subscriptions get no databases for them.
   */
  tablesOf<G extends Group>(group: G): TableViews<G> {
    return this.writable(group);
  }

  private writable<G extends Group>(group: G): TablesOf<G> {
    if (group !== "outbound") return this.tables[group as Exclude<Group, "outbound">] as TablesOf<G>;
    this.outbound ??= openGroup(this.root, "outbound");
    return this.outbound as TablesOf<G>;
  }

  /** A group's tables opened apart, without read cache, to read: for an export's or an import's own handles. */
  uncachedTablesOf<G extends Group>(group: G): TableViews<G> {
    return openGroup(this.root, group, { cache: false });
  }

  /** The newest entry sequence number handed out. */
  currentSeq(): number {
    return this.seq;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  /**
   * How far a saved index (by file name) holds the vault's vectors: every vector of an entry up to
   * this sequence is in it. Written after the index file is saved; 0 when unknown.
   */
  indexedThrough(indexFile: string): number {
    return this.tables.vault.meta.get(`indexed:${indexFile}`) ?? 0;
  }

  setIndexedThrough(indexFile: string, seq: number): Promise<boolean> {
    return this.tables.vault.meta.put(`indexed:${indexFile}`, seq).catch(storageFault);
  }

  /** Throws InsufficientStorage (507) when the vault is at its size ceiling (writes that add data). */
  assertRoom(): void {
    this.gauge.assertRoom("this tenant's vault");
  }

  /** Calls `listener` with the ids of new entries whose write failed at commit (the indexes drop them). */
  onWriteFailed(listener: (ids: string[]) => void): void {
    this.failureListeners.push(listener);
  }

  /** See Staging.takeObserved: the commits an answer read from pending writes must wait for. */
  takeObserved(): Promise<void>[] {
    return this.staging.takeObserved();
  }

  /**
   * Stages a write set and commits it with whatever else is in flight; resolves once durable. At
   * the vault's size ceiling it throws InsufficientStorage at once, before anything is staged or
   * counted (an erasure, which frees space, is let through). A failed commit rejects with
   * InsufficientStorage when the storage is full, and leaves nothing of the set in memory. With a
   * `writeThrough`, the commit runs inside it and the write resolves when it does.
   */
  write(set: WriteSet): Promise<void> {
    const telemetry = this.options.telemetry;
    if (!telemetry) return this.writeThrough(set);
    telemetry.metrics.vaultWriteSetEntries.observe(set.entries.length);
    return telemetry.time("vault.commit", [], () => this.writeThrough(set));
  }

  private writeThrough(set: WriteSet): Promise<void> {
    const through = this.options.writeThrough;
    return through ? through(set, (fixed) => this.commitSet(fixed)) : this.commitSet(set);
  }

  /**
   * A feature's hint in the meta table (`value` null: the key goes), such as how far the memory
   * slice checked the change log. Local bookkeeping, not tenant data: each node derives it from its
   * own copy of the change log, so it is not a write set (cluster mode would log one at every open
   * and close) and is let through at the size ceiling (a few bytes, rewritten in place).
   */
  recordHint(key: string, value: number | null): Promise<boolean> {
    const { meta } = this.tables.vault;
    return (value === null ? meta.remove(key) : meta.put(key, value)).catch(storageFault);
  }

  /**
   * Writes one import batch in a transaction of its own (committed with the next flush). An import
   * is not a write set: it goes to cluster mode's changelog whole once it completes (the storage
   * port's `sealImport`).
   */
  importBatch(batch: VaultRecord[], deadLetterKey: DeadLetterKeyOf): Promise<void> {
    const h = this.importTables();
    return this.root.childTransaction(() => putImported(h, batch, deadLetterKey)).catch(storageFault);
  }

  /** The import is complete: its vectors are the exporting runtime's, judged afresh on the next open. */
  async finishImport(): Promise<void> {
    const { meta } = this.importTables();
    await this.root.childTransaction(() => forgetEmbedderStamp(meta)).catch(storageFault);
  }

  /** Drops whatever an import wrote (the vault was empty before it). */
  async abortImport(): Promise<void> {
    const h = this.importTables();
    await this.root.childTransaction(() => clearImported(h)).catch(storageFault);
  }

  private importTables(): ImportTables {
    this.imported ??= openImportTables((group) => openGroup(this.root, group, { cache: false }));
    return this.imported;
  }

  /** A read transaction: a snapshot of every table until `done()` (an export). */
  readTransaction(): Transaction {
    return this.root.useReadTransaction();
  }

  /** Copies the environment into `dir` (`compact`: live pages only). */
  backup(dir: string, compact: boolean): Promise<void> {
    return this.root.backup(dir, compact);
  }

  /** Queues the set's transaction; resolves once it committed. */
  private commitSet(set: WriteSet): Promise<void> {
    // An erasure or a purge frees space: let through at the ceiling.
    if (!set.erase && !onlyFrees(set)) this.assertRoom();
    // Refused before anything is queued: a key LMDB would refuse mid-set would leave half a set.
    const tooLong = oversizedKey(set);
    if (tooLong)
      return Promise.reject(new KeyTooLong(`a key of ${tooLong} bytes exceeds LMDB's ${MAX_KEY_BYTES}`));
    const state = this.stateSeqs.newer(set);
    const changes = this.changes.position(set.changes, () => set.at ?? this.options.now?.() ?? Date.now());
    // Plain puts, issued in one synchronous run: lmdb-js puts every write of an event turn into one
    // transaction, committed whole or not at all by its write thread, so the B-tree work stays off
    // this thread. Nothing below throws once the first put is issued (keys are bounded by the
    // models; values are JSON-shaped), so a set is never half queued.
    putWriteSet(this.tables, set, state);
    if (set.outbound) putOutboundRecords(this.writable("outbound"), set.outbound);
    for (const s of set.entries) this.summary.upsert(s.seq, entryRow(s));
    for (const s of set.erase?.entries ?? []) this.summary.remove(s.entry.id);
    this.counters.countWrites(set.created);
    if (set.erase) putErasure(this.tables, this.counters, set.erase);
    // Every put of this run resolves with the same commit: the change log's last put gives one
    // promise for it, and a marker put does for a set without changes.
    const committed = this.changes.put(changes) ?? this.tables.vault.meta.put(COMMIT_MARKER_KEY, 0);
    this.inFlight++;
    // The set leaves memory in the same callback its commit settles in, so no message runs between.
    const settled = committed.then(
      () => {
        this.settle();
        this.staging.unstage(staged);
        if (changes.length > 0) this.options.onCommitted?.(changes);
      },
      (error) => {
        this.rollBack(set, staged);
        this.settle();
        throw error;
      },
    );
    // What the writer and every reader of the staged values wait for: a storage fault is a 507.
    const commit = settled.catch(storageFault);
    // Staged in the same tick as the transaction is queued, so no read sees them without their commit.
    const staged = this.staging.stage(set, commit);
    // A reader of a failed write waits on `commit` and sees its error; the guard only stops an
    // unobserved rejection from crashing the process.
    commit.catch(() => undefined);
    return commit;
  }

  /**
   * Undoes in memory what a set that failed at commit staged: its pending values, the values it
   * left in lmdb-js's read cache, its connector-state sequences, its index entries; the counters
   * are recounted once no write is in flight (later sets already queued carry counts that include it).
   */
  private rollBack(set: WriteSet, staged: StagedSet): void {
    this.staging.unstage(staged);
    // Both a put and a remove leave their value pinned in the read cache until the commit.
    for (const s of [...set.entries, ...(set.erase?.entries ?? [])]) {
      entryCache(this.tables.memory.entries)?.delete(s.seq);
      this.restoreSummary(s.entry.id);
    }
    this.stateSeqs.forget(set);
    this.counters.forget();
    this.recountDue = true;
    const failed = set.created.map((s) => s.entry.id).filter((id) => !this.staging.hasEntry(id));
    if (failed.length > 0) for (const listener of this.failureListeners) listener(failed);
  }

  /** An entry's summary row as staged or committed now (a failed write's is taken back). */
  private restoreSummary(id: string): void {
    const now = this.staging.peek(id) ?? storedById(this.tables.memory, id);
    if (now) this.summary.upsert(now.seq, entryRow(now));
    else this.summary.remove(id);
  }

  /** A write set settled: a recount due is made once none is in flight. */
  private settle(): void {
    this.inFlight--;
    if (this.recountDue && this.inFlight === 0 && !this.closed) {
      this.recountDue = false;
      this.counters.recount();
    }
  }

  /** False once `close` began: a read after that throws (and lmdb may end the process on a closed read txn). */
  get isOpen(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }
}
