import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";
import { ValidationFailed } from "../errors.ts";
import type { StoredEntry } from "../memory/temporal.ts";
import { CATEGORIES, type Category } from "../models/category.ts";
import type { Change, ChangeDraft } from "../models/change.ts";
import { isoOf } from "../models/common.ts";
import { guardCommitRejections, observeCommits, storageFault } from "./storage-faults.ts";
import { StorageGauge, type StorageLimits } from "./storage-gauge.ts";
import { encodeVectorRecord, vectorRecordId, vectorRecordVector } from "./vector-records.ts";

/** Legacy high-water mark of the sequence; the category index is the source of truth now. */
const SEQ_KEY = "seq";
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** Named databases a tenant environment may hold (the vault's, and those features open beside them). */
export const VAULT_MAX_DBS = 32;

/** LMDB's largest key (lmdb-js builds it with 1978 bytes); array keys take a few bytes more. */
const MAX_KEY_BYTES = 1978;
const KEY_MARGIN = 32;

/** A write whose key LMDB could not store: refused whole, nothing queued. */
export class KeyTooLong extends ValidationFailed {
  constructor(message: string) {
    super(message, [{ path: "/", message: "a key is too long to store" }]);
  }
}

/** The byte length of the first key of `set` that would not fit, or undefined. */
function oversizedKey(set: WriteSet): number | undefined {
  const keys: string[] = [];
  for (const s of set.created) keys.push(...(s.entry.tags ?? []));
  for (const [key] of set.objects ?? []) keys.push(key);
  for (const [key] of set.deadLetters ?? []) keys.push(key);
  for (const [key] of set.state ?? []) keys.push(`~seq:${key}`);
  if (set.idempotency) keys.push(set.idempotency.key);
  if (set.dedupe) keys.push(set.dedupe.key);
  for (const change of set.changes ?? []) keys.push(change.id);
  for (const key of keys) {
    const bytes = Buffer.byteLength(key);
    if (bytes > MAX_KEY_BYTES - KEY_MARGIN) return bytes;
  }
  return undefined;
}

/** Meta keys of the counters: entries per category, and entries written per UTC day and category. */
const COUNTERS_KEY = "counters";
/** A meta key every write puts, so the write has one promise for the commit of all its puts. */
const COMMIT_MARKER_KEY = "~commit";
const COUNTERS_VERSION = 1;
const countKey = (category: string) => `n:${category}`;
const dayKey = (day: string, category: string) => `w:${day}:${category}`;

/** Dead letters are keyed event id first, so a replay by event id finds every source's record. */
export function deadLetterKey(eventId: string, source: string): string {
  return `${eventId}\u0000${source}`;
}

/** A NUL-separated string key as written: lmdb-js may read it back as the array of its parts. */
function nulJoined(key: unknown): string {
  return Array.isArray(key) ? key.join("\u0000") : String(key);
}

/** Everything one acknowledged write changes; committed in one transaction. */
export interface WriteSet {
  entries: StoredEntry[];
  /** Entries that are new (and so get index keys); the rest of `entries` are updates. */
  created: StoredEntry[];
  vectors?: Array<[string, Float32Array]>;
  idempotency?: { key: string; record: IdempotencyRecord };
  dedupe?: { key: string; record: DedupeRecord };
  objects?: Array<[string, string]>;
  /** Keyed by `deadLetterKey(event_id, source)`. */
  deadLetters?: Array<[string, unknown]>;
  state?: Array<[string, unknown]>;
  /** With a sequence, each state key is written only if no newer snapshot was written before. */
  stateSeq?: number;
  /** What the set changes, for the change log (committed with it). */
  changes?: ChangeDraft[];
  /** Entries removed for good (erasure), with what else must go with them. */
  erase?: Erasure;
  /** Transaction time of the changes (default: the vault's clock at write). */
  at?: number;
}

/** An erased entry's trace: enough to explain a reference to it, nothing of its content. */
export interface Tombstone {
  id: string;
  category: Category;
  recorded_at: string;
  erased_at: string;
  erased_by: string;
}

export interface Erasure {
  entries: StoredEntry[];
  tombstones: Tombstone[];
  /** Keys of the dead letters that carried the erased content. */
  deadLetters: string[];
  /** Keys of idempotency records whose stored answer is an erased entry. */
  idempotency: string[];
}

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
}

/** lmdb-js's read cache of a `cache: true` database (not part of its typed API). */
function entryCache(db: Database<StoredEntry, string>): { delete(key: string): void } | undefined {
  return (db as unknown as { cache?: { delete(key: string): void } }).cache;
}

/** A value written but not yet committed, with the commit it waits for. */
interface Staged<T> {
  value: T;
  commit: Promise<void>;
}

export interface IdempotencyRecord {
  at: number;
  status: number;
  body: unknown;
  /** Digest of the request the key was first used with (absent in records of older versions). */
  request?: string;
}

export interface DedupeRecord {
  at: number;
  entries: string[];
}

/**
 * One LMDB environment per tenant and its named databases (ARCHITECTURE, Storage). Index keys end in
 * the entry's sequence number, which is unique and leads back to the entry id. Writes are batched
 * by lmdb-js into shared commits (group commit); until its commit lands a write is served from
 * `pending`, so the owning actor reads its own writes.
 */
export class TenantVault {
  readonly root: RootDatabase;
  private readonly entries: Database<StoredEntry, string>;
  private readonly byCategory: Database<string, [string, number]>;
  private readonly byTag: Database<string, [string, number]>;
  private readonly byValid: Database<string, [number, number]>;
  /** Keyed by entry sequence number (see vector-records.ts); older vaults are migrated on open. */
  private readonly embeddings: Database<Buffer, number>;
  private readonly objects: Database<string, string>;
  private readonly deadLetters: Database<unknown, string>;
  private readonly dedupe: Database<DedupeRecord, string>;
  private readonly idempotency: Database<IdempotencyRecord, string>;
  readonly connectorState: Database<unknown, string>;
  private readonly meta: Database<number, string>;
  private readonly changes: Database<Change, number>;
  private readonly changesByEntry: Database<string, [string, number]>;
  private readonly tombstones: Database<Tombstone, string>;
  /** The latest value of each counter written since open (see countWrites). */
  private readonly counters = new Map<string, number>();
  private changeSeq: number;
  private readonly pending = new Map<string, Staged<StoredEntry>>();
  /** Sequences of connector state keys, authoritative once read (this vault's actor is the only writer). */
  private readonly stateSeqs = new Map<string, number>();
  private readonly pendingKeys = new Map<string, Staged<unknown>>();
  /**
   * Commits of the pending values that reads have returned since `takeObserved()`: an answer built
   * from them must wait for them, or a crash could lose what a client was told exists.
   */
  private observed = new Set<Promise<void>>();
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
    this.root = open({ path: dir, compression: false, maxDbs: VAULT_MAX_DBS });
    observeCommits(this.root);
    this.gauge = new StorageGauge(this.root, options.maxBytes ?? Number.POSITIVE_INFINITY, options.disk);
    // Decoded entries are cached by lmdb-js (reads are the hot path); stored objects are never
    // mutated in place, so sharing them is safe.
    this.entries = this.root.openDB({ name: "entries", cache: true });
    this.byCategory = this.root.openDB({ name: "by-category" });
    this.byTag = this.root.openDB({ name: "by-tag" });
    this.byValid = this.root.openDB({ name: "by-valid" });
    this.embeddings = this.root.openDB({ name: "embeddings", encoding: "binary" });
    this.objects = this.root.openDB({ name: "objects" });
    this.deadLetters = this.root.openDB({ name: "dead-letters" });
    this.dedupe = this.root.openDB({ name: "dedupe" });
    this.idempotency = this.root.openDB({ name: "idempotency" });
    this.connectorState = this.root.openDB({ name: "connector-state" });
    this.meta = this.root.openDB({ name: "meta" });
    this.changes = this.root.openDB({ name: "changes" });
    this.changesByEntry = this.root.openDB({ name: "changes-by-entry" });
    this.tombstones = this.root.openDB({ name: "tombstones" });
    this.seq = this.lastSeq();
    this.changeSeq = this.lastChangeSeq();
    this.migrateVectorKeys();
    this.backfillCounters();
  }

  /** The highest sequence number in use: the newest key of any category index. */
  private lastSeq(): number {
    let max = this.meta.get(SEQ_KEY) ?? 0;
    for (const category of CATEGORIES) {
      for (const key of this.byCategory.getKeys({
        start: [category, MAX_SEQ],
        end: [category, -1],
        reverse: true,
        limit: 1,
      })) {
        max = Math.max(max, key[1]);
      }
    }
    return max;
  }

  /** The trace of an erased entry, if `id` was erased. */
  tombstone(id: string): Tombstone | undefined {
    return this.tombstones.get(id);
  }

  /** Every idempotency record with its key (erasure looks for the ones answering an erased entry). */
  *idempotencyRecords(): Generator<[string, IdempotencyRecord]> {
    for (const { key, value } of this.idempotency.getRange()) yield [key, value];
  }

  /** Every committed dead letter with its key. */
  *deadLetterRecords(): Generator<[string, unknown]> {
    for (const { key, value } of this.deadLetters.getRange()) yield [key, value];
  }

  /** The newest position of the change log (0 when empty). */
  lastChangeSeq(): number {
    for (const key of this.changes.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  /** Committed changes after position `after`, oldest first, at most `limit`. */
  changesSince(after: number, limit: number): Change[] {
    return [...this.changes.getRange({ start: after + 1, limit }).map(({ value }) => value)];
  }

  /** Every committed change of one entry (or dead-lettered event id), oldest first. */
  changesOf(id: string): Change[] {
    const out: Change[] = [];
    for (const key of this.changesByEntry.getKeys({ start: [id, 0], end: [id, Number.MAX_SAFE_INTEGER] })) {
      const change = this.changes.get(key[1]);
      if (change) out.push(change);
    }
    return out;
  }

  /** The newest change-log position handed out (committed or still committing). */
  currentChangeSeq(): number {
    return this.changeSeq;
  }

  /** The newest entry sequence number handed out. */
  currentSeq(): number {
    return this.seq;
  }

  /**
   * How far a saved index (by file name) holds the vault's vectors: every vector of an entry up to
   * this sequence is in it. Written after the index file is saved; 0 when unknown.
   */
  indexedThrough(indexFile: string): number {
    return this.meta.get(`indexed:${indexFile}`) ?? 0;
  }

  setIndexedThrough(indexFile: string, seq: number): Promise<boolean> {
    return this.meta.put(`indexed:${indexFile}`, seq).catch(storageFault);
  }

  /** Throws InsufficientStorage (507) when the vault is at its size ceiling (writes that add data). */
  assertRoom(): void {
    this.gauge.assertRoom("this tenant's vault");
  }

  /** Calls `listener` with the ids of new entries whose write failed at commit (the indexes drop them). */
  onWriteFailed(listener: (ids: string[]) => void): void {
    this.failureListeners.push(listener);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  get(id: string): StoredEntry | undefined {
    const staged = this.pending.get(id);
    return staged ? this.seen(staged) : this.entries.get(id);
  }

  has(id: string): boolean {
    const staged = this.pending.get(id);
    return staged ? this.seen(staged) !== undefined : this.entries.doesExist(id);
  }

  /**
   * The commits that pending values read since the last call belong to, and forgets them. The
   * owning actor calls it after each message: if it is not empty, the reply waits for them.
   */
  takeObserved(): Promise<void>[] {
    if (this.observed.size === 0) return [];
    const commits = [...this.observed];
    this.observed = new Set();
    return commits;
  }

  private seen<T>(staged: Staged<T>): T {
    this.observed.add(staged.commit);
    return staged.value;
  }

  private pendingKey(key: string): unknown {
    const staged = this.pendingKeys.get(key);
    return staged ? this.seen(staged) : undefined;
  }

  entryCount(): number {
    return storedCount(this.entries);
  }

  deadLetterCount(): number {
    return storedCount(this.deadLetters);
  }

  /** Dead letters of one event id (one per source that used it), pending writes first. */
  deadLettersOf(eventId: string): unknown[] {
    const prefix = `${eventId}\u0000`;
    const found = new Map<string, unknown>();
    for (const [key, value] of this.pendingDeadLetters()) if (key.startsWith(prefix)) found.set(key, value);
    // lmdb-js's key encoding reads a NUL as an array separator: a range bound ending in one is
    // mis-encoded for some lengths (dead letters of event ids near 50–60 characters were not
    // found), and keys come back as arrays (a pending replay's record then counted twice). So the
    // range is bounded on the bare id and each committed key is rebuilt as the string it was.
    for (const { key, value } of this.deadLetters.getRange({ start: eventId, end: `${eventId}\u0001` })) {
      const written = nulJoined(key);
      if (written.startsWith(prefix) && !found.has(written)) found.set(written, value);
    }
    return [...found.values()];
  }

  /** Every dead letter, pending writes overlaid on committed ones. */
  allDeadLetters(): unknown[] {
    const all = new Map<string, unknown>();
    // Keyed as the pending ones are, or a record being replayed would be listed twice.
    for (const { key, value } of this.deadLetters.getRange()) all.set(nulJoined(key), value);
    for (const [key, value] of this.pendingDeadLetters()) all.set(key, value);
    return [...all.values()];
  }

  private *pendingDeadLetters(): Generator<[string, unknown]> {
    for (const [key, staged] of this.pendingKeys)
      if (key.startsWith("l:")) yield [key.slice(2), this.seen(staged)];
  }

  /** Connector statuses for tenant health: state keys `status:<connector>`. */
  connectorStatuses(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const { key, value } of this.connectorState.getRange({ start: "status:", end: "status;" })) {
      out[key.slice("status:".length)] = value;
    }
    return out;
  }

  vector(id: string): Float32Array | undefined {
    const pending = this.pendingKey(`v:${id}`);
    if (pending instanceof Float32Array) return pending;
    const seq = this.pending.get(id)?.value.seq ?? this.entries.get(id)?.seq;
    const bytes = seq === undefined ? undefined : this.embeddings.getBinary(seq);
    return bytes && vectorRecordId(bytes) === id ? vectorRecordVector(bytes) : undefined;
  }

  objectLatest(objectKey: string): string | undefined {
    return (this.pendingKey(`o:${objectKey}`) as string | undefined) ?? this.objects.get(objectKey);
  }

  idempotent(key: string, now: number, ttlMs: number): IdempotencyRecord | undefined {
    const record =
      (this.pendingKey(`i:${key}`) as IdempotencyRecord | undefined) ?? this.idempotency.get(key);
    return record && now - record.at < ttlMs ? record : undefined;
  }

  deduped(key: string): DedupeRecord | undefined {
    return (this.pendingKey(`d:${key}`) as DedupeRecord | undefined) ?? this.dedupe.get(key);
  }

  /** Newest first: entries of one category with a sequence number below `before`. */
  *scanCategory(category: Category, before = MAX_SEQ): Generator<StoredEntry> {
    yield* this.scanIndex(this.byCategory, category, before);
  }

  /** Newest first: entries carrying `tag` with a sequence number below `before`. */
  *scanTag(tag: string, before = MAX_SEQ): Generator<StoredEntry> {
    yield* this.scanIndex(this.byTag, tag, before);
  }

  /**
   * Entries whose valid_from lies in [fromMs, toMs), in valid-time order, then those of writes
   * still in flight: one range read of the by-valid index, each entry then fetched by id.
   */
  *scanValid(fromMs: number, toMs: number): Generator<StoredEntry> {
    const indexed = new Set<string>();
    for (const { value: id } of this.byValid.getRange({ start: [fromMs, 0], end: [toMs, 0] })) {
      if (this.pending.has(id)) indexed.add(id);
      const stored = this.get(id);
      if (stored) yield stored;
    }
    for (const staged of this.pending.values()) {
      const validFrom = Date.parse(staged.value.entry.valid_from);
      if (validFrom >= fromMs && validFrom < toMs && !indexed.has(staged.value.entry.id))
        yield this.seen(staged);
    }
  }

  /** Committed entries per category (a counter kept with each write, not a count of keys). */
  entriesPerCategory(): Record<Category, number> {
    const counts = {} as Record<Category, number>;
    for (const category of CATEGORIES) counts[category] = this.counterOf(countKey(category));
    return counts;
  }

  /** Entries written (by recorded_at, UTC days) per day and category, for days in [fromDay, toDay]. */
  writesPerDay(fromDay: string, toDay: string): Array<{ day: string; category: Category; writes: number }> {
    const [start, end] = [dayKey(fromDay, ""), dayKey(toDay, "~")];
    const values = new Map<string, number>();
    for (const { key, value } of this.meta.getRange({ start, end })) values.set(key, value);
    // Counts of writes still committing are the latest ones.
    for (const [key, value] of this.counters) if (key >= start && key < end) values.set(key, value);
    return [...values]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, writes]) => {
        const [, day, category] = key.split(":") as [string, string, Category];
        return { day, category, writes };
      });
  }

  /** Every committed vector with its entry id, in write order, of entries after sequence `after`. */
  *vectorRecords(after = 0): Generator<{ id: string; vector(): Float32Array }> {
    for (const { value } of this.embeddings.getRange({ start: after + 1 })) {
      const bytes = value;
      yield { id: vectorRecordId(bytes), vector: () => vectorRecordVector(bytes) };
    }
  }

  /**
   * Entries whose commit has not landed yet, for building an index. Not an answer, so not
   * observed: results read from the index go through `get`, which is.
   */
  *pendingEntries(): Generator<StoredEntry> {
    for (const staged of this.pending.values()) yield staged.value;
  }

  /** Every committed entry, oldest first (index rebuilds). */
  *all(): Generator<StoredEntry> {
    for (const { value } of this.entries.getRange()) yield value;
  }

  private *scanIndex(
    db: Database<string, [string, number]>,
    prefix: string,
    before: number,
  ): Generator<StoredEntry> {
    const range = db.getRange({ start: [prefix, before - 1], end: [prefix, -1], reverse: true });
    const pendingNewer = [...this.pending.values()]
      .filter((s) => s.value.seq < before && this.indexedUnder(db, s.value, prefix))
      .sort((a, b) => b.value.seq - a.value.seq);
    // Pending (uncommitted) entries are merged in sequence order with the committed ones.
    let p = 0;
    for (const { key, value: id } of range) {
      while (p < pendingNewer.length && pendingNewer[p]!.value.seq > key[1])
        yield this.seen(pendingNewer[p++]!);
      if (this.pending.has(id)) continue;
      const stored = this.entries.get(id);
      if (stored) yield stored;
    }
    while (p < pendingNewer.length) yield this.seen(pendingNewer[p++]!);
  }

  private indexedUnder(db: Database<string, [string, number]>, stored: StoredEntry, prefix: string): boolean {
    if (db === this.byCategory) return stored.entry.category === prefix;
    return (stored.entry.tags ?? []).includes(prefix);
  }

  /**
   * Stages a write set and commits it with whatever else is in flight; resolves once durable. At
   * the vault's size ceiling it throws InsufficientStorage at once, before anything is staged or
   * counted (an erasure, which frees space, is let through). A failed commit rejects with
   * InsufficientStorage when the storage is full, and leaves nothing of the set in memory. With a
   * `writeThrough`, the commit runs inside it and the write resolves when it does.
   */
  write(set: WriteSet): Promise<void> {
    const through = this.options.writeThrough;
    return through ? through(set, (fixed) => this.commitSet(fixed)) : this.commitSet(set);
  }

  /** Queues the set's transaction; resolves once it committed. */
  private commitSet(set: WriteSet): Promise<void> {
    if (!set.erase) this.assertRoom();
    // Refused before anything is queued: a key LMDB would refuse mid-set would leave half a set.
    const tooLong = oversizedKey(set);
    if (tooLong)
      return Promise.reject(new KeyTooLong(`a key of ${tooLong} bytes exceeds LMDB's ${MAX_KEY_BYTES}`));
    const state = this.newerState(set);
    const changes = this.positioned(set);
    // Plain puts, issued in one synchronous run: lmdb-js puts every write of an event turn into one
    // transaction, committed whole or not at all by its write thread, so the B-tree work stays off
    // this thread. Nothing below throws once the first put is issued (keys are bounded by the
    // models; values are JSON-shaped), so a set is never half queued.
    for (const s of set.entries) this.entries.put(s.entry.id, s);
    for (const s of set.created) this.putIndexKeys(s);
    this.countWrites(set.created);
    if (set.vectors && set.vectors.length > 0) {
      const seqs = new Map(set.created.map((s) => [s.entry.id, s.seq]));
      for (const [id, vec] of set.vectors) {
        const seq = seqs.get(id);
        if (seq !== undefined) this.embeddings.put(seq, encodeVectorRecord(id, vec));
      }
    }
    for (const [key, id] of set.objects ?? []) this.objects.put(key, id);
    for (const [key, value] of set.deadLetters ?? []) this.deadLetters.put(key, value);
    for (const [key, value] of state) this.connectorState.put(key, value);
    if (set.idempotency) this.idempotency.put(set.idempotency.key, set.idempotency.record);
    if (set.dedupe) this.dedupe.put(set.dedupe.key, set.dedupe.record);
    if (set.erase) this.applyErasure(set.erase);
    for (const change of changes) {
      this.changes.put(change.seq, change);
      this.changesByEntry.put([change.id, change.seq], change.type);
    }
    // Every put of this turn resolves with the same commit; a marker put gives one promise for it.
    const committed = this.meta.put(COMMIT_MARKER_KEY, 0);
    this.inFlight++;
    // The set leaves memory in the same callback its commit settles in, so no message runs between.
    const settled = committed.then(
      () => {
        this.settle();
        this.unstage(entries, keys);
        if (changes.length > 0) this.options.onCommitted?.(changes);
      },
      (error) => {
        this.rollBack(set, entries, keys);
        this.settle();
        throw error;
      },
    );
    // What the writer and every reader of the staged values wait for: a storage fault is a 507.
    const commit = settled.catch(storageFault);
    // Staged in the same tick as the transaction is queued, so no read sees them without their commit.
    const entries = set.entries.map((s) => {
      const staged = { value: s, commit };
      this.pending.set(s.entry.id, staged);
      return staged;
    });
    const keys = this.stageKeys(set, commit);
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
  private rollBack(set: WriteSet, entries: Staged<StoredEntry>[], keys: Map<string, Staged<unknown>>): void {
    this.unstage(entries, keys);
    // Both a put and a remove leave their value pinned in the read cache until the commit.
    for (const s of [...set.entries, ...(set.erase?.entries ?? [])])
      entryCache(this.entries)?.delete(s.entry.id);
    for (const [key] of set.state ?? []) {
      const seqKey = `~seq:${key}`;
      if (this.stateSeqs.get(seqKey) === set.stateSeq) this.stateSeqs.delete(seqKey);
    }
    this.counters.clear();
    this.recountDue = true;
    const failed = set.created.map((s) => s.entry.id).filter((id) => !this.pending.has(id));
    if (failed.length > 0) for (const listener of this.failureListeners) listener(failed);
  }

  /** A write set settled: a recount due is made once none is in flight. */
  private settle(): void {
    this.inFlight--;
    if (this.recountDue && this.inFlight === 0 && !this.closed) this.recountCounters();
  }

  /** Counters recounted from the committed entries, in memory at once and on disk with the next commit. */
  private recountCounters(): void {
    this.recountDue = false;
    const counts = this.countEntries();
    this.counters.clear();
    for (const [key, value] of counts) this.counters.set(key, value);
    for (const category of CATEGORIES)
      if (!counts.has(countKey(category))) this.counters.set(countKey(category), 0);
    this.storeCounts(counts);
    // Should this write fail too, the next open sees counts that disagree with the entries and recounts.
    void this.meta
      .put(COUNTERS_KEY, COUNTERS_VERSION)
      .catch(storageFault)
      .catch(() => undefined);
  }

  /** The set's changes with their log positions, taken in staging order (the actor's order). */
  private positioned(set: WriteSet): Change[] {
    if (!set.changes || set.changes.length === 0) return [];
    const at = isoOf(set.at ?? this.options.now?.() ?? Date.now());
    return set.changes.map((draft) => ({ ...draft, seq: ++this.changeSeq, at }));
  }

  /** State entries of the write set that are not older than what is stored (see WriteSet.stateSeq). */
  private newerState(set: WriteSet): Array<[string, unknown]> {
    const state = set.state ?? [];
    const seq = set.stateSeq;
    if (seq === undefined) return state;
    const kept: Array<[string, unknown]> = [];
    for (const [key, value] of state) {
      const seqKey = `~seq:${key}`;
      const stored =
        this.stateSeqs.get(seqKey) ?? (this.connectorState.get(seqKey) as number | undefined) ?? 0;
      if (seq < stored) continue;
      this.stateSeqs.set(seqKey, seq);
      kept.push([key, value], [seqKey, seq]);
    }
    return kept;
  }

  /**
   * Counters of the dashboard. The tenant actor is the only writer, so the latest value of each
   * counter is kept here and written with every set that changes it; a failed commit drops them
   * (see write) and the next open recounts.
   */
  private countWrites(created: StoredEntry[]): void {
    for (const { entry } of created) {
      this.bump(countKey(entry.category), 1);
      this.bump(dayKey(entry.recorded_at.slice(0, 10), entry.category), 1);
    }
  }

  private counterOf(key: string): number {
    return this.counters.get(key) ?? this.meta.get(key) ?? 0;
  }

  private bump(key: string, by: number): void {
    const value = Math.max(0, this.counterOf(key) + by);
    this.counters.set(key, value);
    this.meta.put(key, value);
  }

  /** Vaults of the first layout keyed vectors by entry id: rekeyed by sequence number once. */
  private migrateVectorKeys(): void {
    const legacy = this.embeddings as unknown as Database<Buffer, number | string>;
    const byId: Array<[string, Buffer]> = [];
    for (const { key, value } of legacy.getRange({ start: "" }))
      if (typeof key === "string") byId.push([key, value]);
    if (byId.length === 0) return;
    this.root.transactionSync(() => {
      for (const [id, bytes] of byId) {
        legacy.remove(id);
        const seq = this.entries.get(id)?.seq;
        if (seq === undefined) continue;
        const vec = new Float32Array(bytes.byteLength / 4);
        new Uint8Array(vec.buffer).set(bytes);
        legacy.put(seq, encodeVectorRecord(id, vec));
      }
    });
  }

  /**
   * Vaults written before the counters existed recount; so do vaults whose counts disagree with
   * their entries (a failed commit followed by a queued one that carried its counts, and no recount
   * written before the process stopped).
   */
  private backfillCounters(): void {
    if (this.meta.get(COUNTERS_KEY) !== undefined && this.countsAgree()) return;
    const counts = this.countEntries();
    this.root.transactionSync(() => {
      this.storeCounts(counts);
      this.meta.put(COUNTERS_KEY, COUNTERS_VERSION);
    });
  }

  private countsAgree(): boolean {
    let sum = 0;
    for (const category of CATEGORIES) sum += this.meta.get(countKey(category)) ?? 0;
    return sum === storedCount(this.entries);
  }

  private countEntries(): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    for (const { value } of this.entries.getRange()) {
      add(countKey(value.entry.category));
      add(dayKey(value.entry.recorded_at.slice(0, 10), value.entry.category));
    }
    return counts;
  }

  /** Replaces every stored counter by `counts` (plain puts: in a transaction when called in one). */
  private storeCounts(counts: Map<string, number>): void {
    for (const { key } of this.meta.getRange({ start: "n:", end: "n;" })) this.meta.remove(key);
    for (const { key } of this.meta.getRange({ start: "w:", end: "w;" })) this.meta.remove(key);
    for (const [key, value] of counts) this.meta.put(key, value);
  }

  /** Removes erased entries with every key that leads to them, and leaves their tombstones. */
  private applyErasure(erasure: Erasure): void {
    for (const s of erasure.entries) {
      const e = s.entry;
      this.entries.remove(e.id);
      this.byCategory.remove([e.category, s.seq]);
      for (const tag of new Set(e.tags ?? [])) this.byTag.remove([tag, s.seq]);
      this.byValid.remove([Date.parse(e.valid_from), s.seq]);
      this.embeddings.remove(s.seq);
      this.bump(countKey(e.category), -1);
    }
    for (const t of erasure.tombstones) this.tombstones.put(t.id, t);
    for (const key of erasure.deadLetters) this.deadLetters.remove(key);
    for (const key of erasure.idempotency) this.idempotency.remove(key);
  }

  private putIndexKeys(s: StoredEntry): void {
    const e = s.entry;
    this.byCategory.put([e.category, s.seq], e.id);
    for (const tag of new Set(e.tags ?? [])) this.byTag.put([tag, s.seq], e.id);
    this.byValid.put([Date.parse(e.valid_from), s.seq], e.id);
  }

  private stageKeys(set: WriteSet, commit: Promise<void>): Map<string, Staged<unknown>> {
    const values = new Map<string, unknown>();
    for (const [id, vec] of set.vectors ?? []) values.set(`v:${id}`, vec);
    for (const [key, id] of set.objects ?? []) values.set(`o:${key}`, id);
    if (set.idempotency) values.set(`i:${set.idempotency.key}`, set.idempotency.record);
    if (set.dedupe) values.set(`d:${set.dedupe.key}`, set.dedupe.record);
    for (const [key, value] of set.deadLetters ?? []) values.set(`l:${key}`, value);
    const staged = new Map<string, Staged<unknown>>();
    for (const [key, value] of values) {
      const entry = { value, commit };
      staged.set(key, entry);
      this.pendingKeys.set(key, entry);
    }
    return staged;
  }

  private unstage(entries: Staged<StoredEntry>[], keys: Map<string, Staged<unknown>>): void {
    for (const staged of entries) {
      const id = staged.value.entry.id;
      if (this.pending.get(id) === staged) this.pending.delete(id);
    }
    for (const [key, staged] of keys) if (this.pendingKeys.get(key) === staged) this.pendingKeys.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }
}

/**
 * The committed records of a table from the B-tree's own statistics, in O(1): `getCount()` walks
 * every key, which at 100k entries takes ~35 ms and pages the whole table into memory (+135 MB RSS
 * on each open, where the counters are checked).
 */
function storedCount(db: Database): number {
  return (db.getStats() as { entryCount: number }).entryCount;
}
