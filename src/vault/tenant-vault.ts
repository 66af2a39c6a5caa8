import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";
import type { StoredEntry } from "../memory/temporal.ts";
import { CATEGORIES, type Category } from "../models/category.ts";

/** Legacy high-water mark of the sequence; the category index is the source of truth now. */
const SEQ_KEY = "seq";
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** Dead letters are keyed event id first, so a replay by event id finds every source's record. */
export function deadLetterKey(eventId: string, source: string): string {
  return `${eventId}\u0000${source}`;
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
}

export interface IdempotencyRecord {
  at: number;
  status: number;
  body: unknown;
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
  private readonly embeddings: Database<Buffer, string>;
  private readonly objects: Database<string, string>;
  private readonly deadLetters: Database<unknown, string>;
  private readonly dedupe: Database<DedupeRecord, string>;
  private readonly idempotency: Database<IdempotencyRecord, string>;
  readonly connectorState: Database<unknown, string>;
  private readonly meta: Database<number, string>;
  private readonly pending = new Map<string, StoredEntry>();
  /** Sequences of connector state keys, authoritative once read (this vault's actor is the only writer). */
  private readonly stateSeqs = new Map<string, number>();
  private readonly pendingKeys = new Map<string, unknown>();
  private seq: number;
  private closed = false;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.root = open({ path: dir, compression: false, maxDbs: 16 });
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
    this.seq = this.lastSeq();
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

  nextSeq(): number {
    return ++this.seq;
  }

  get(id: string): StoredEntry | undefined {
    return this.pending.get(id) ?? this.entries.get(id);
  }

  has(id: string): boolean {
    return this.pending.has(id) || this.entries.doesExist(id);
  }

  entryCount(): number {
    return this.entries.getCount();
  }

  deadLetterCount(): number {
    return this.deadLetters.getCount();
  }

  /** Dead letters of one event id (one per source that used it), pending writes first. */
  deadLettersOf(eventId: string): unknown[] {
    const prefix = `${eventId}\u0000`;
    const found = new Map<string, unknown>();
    for (const [key, value] of this.pendingDeadLetters()) if (key.startsWith(prefix)) found.set(key, value);
    for (const { key, value } of this.deadLetters.getRange({ start: prefix, end: `${eventId}\u0001` })) {
      if (!found.has(key)) found.set(key, value);
    }
    return [...found.values()];
  }

  /** Every dead letter, pending writes overlaid on committed ones. */
  allDeadLetters(): unknown[] {
    const all = new Map<string, unknown>();
    for (const { key, value } of this.deadLetters.getRange()) all.set(key, value);
    for (const [key, value] of this.pendingDeadLetters()) all.set(key, value);
    return [...all.values()];
  }

  private *pendingDeadLetters(): Generator<[string, unknown]> {
    for (const [key, value] of this.pendingKeys) if (key.startsWith("l:")) yield [key.slice(2), value];
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
    const pending = this.pendingKeys.get(`v:${id}`);
    if (pending instanceof Float32Array) return pending;
    const bytes = this.embeddings.getBinary(id);
    if (!bytes) return undefined;
    // Copy: the bytes LMDB hands out are only valid until the next read.
    const copy = new Float32Array(bytes.byteLength / 4);
    new Uint8Array(copy.buffer).set(bytes);
    return copy;
  }

  objectLatest(objectKey: string): string | undefined {
    return (this.pendingKeys.get(`o:${objectKey}`) as string | undefined) ?? this.objects.get(objectKey);
  }

  idempotent(key: string, now: number, ttlMs: number): IdempotencyRecord | undefined {
    const record =
      (this.pendingKeys.get(`i:${key}`) as IdempotencyRecord | undefined) ?? this.idempotency.get(key);
    return record && now - record.at < ttlMs ? record : undefined;
  }

  deduped(key: string): DedupeRecord | undefined {
    return (this.pendingKeys.get(`d:${key}`) as DedupeRecord | undefined) ?? this.dedupe.get(key);
  }

  /** Newest first: entries of one category with a sequence number below `before`. */
  *scanCategory(category: Category, before = MAX_SEQ): Generator<StoredEntry> {
    yield* this.scanIndex(this.byCategory, category, before);
  }

  /** Newest first: entries carrying `tag` with a sequence number below `before`. */
  *scanTag(tag: string, before = MAX_SEQ): Generator<StoredEntry> {
    yield* this.scanIndex(this.byTag, tag, before);
  }

  /** Entries whose valid_from lies in [fromMs, toMs). */
  *scanValid(fromMs: number, toMs: number): Generator<StoredEntry> {
    for (const { value: id } of this.byValid.getRange({ start: [fromMs, 0], end: [toMs, 0] })) {
      const stored = this.get(id);
      if (stored) yield stored;
    }
  }

  /** Ids of every committed vector (keys only: nothing is decoded). */
  *vectorIds(): Generator<string> {
    yield* this.embeddings.getKeys();
  }

  /** Entries whose commit has not landed yet. */
  *pendingEntries(): Generator<StoredEntry> {
    yield* this.pending.values();
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
      .filter((s) => s.seq < before && this.indexedUnder(db, s, prefix))
      .sort((a, b) => b.seq - a.seq);
    // Pending (uncommitted) entries are merged in sequence order with the committed ones.
    let p = 0;
    for (const { key, value: id } of range) {
      while (p < pendingNewer.length && pendingNewer[p]!.seq > key[1]) yield pendingNewer[p++]!;
      if (this.pending.has(id)) continue;
      const stored = this.entries.get(id);
      if (stored) yield stored;
    }
    while (p < pendingNewer.length) yield pendingNewer[p++]!;
  }

  private indexedUnder(db: Database<string, [string, number]>, stored: StoredEntry, prefix: string): boolean {
    if (db === this.byCategory) return stored.entry.category === prefix;
    return (stored.entry.tags ?? []).includes(prefix);
  }

  /** Stages a write set and commits it with whatever else is in flight; resolves once durable. */
  write(set: WriteSet): Promise<void> {
    for (const s of set.entries) this.pending.set(s.entry.id, s);
    const staged = this.stageKeys(set);
    const state = this.newerState(set);
    const committed = this.root.transaction(() => {
      for (const s of set.entries) this.entries.put(s.entry.id, s);
      for (const s of set.created) this.putIndexKeys(s);
      for (const [id, vec] of set.vectors ?? [])
        this.embeddings.put(id, Buffer.from(vec.buffer, vec.byteOffset, vec.byteLength));
      for (const [key, id] of set.objects ?? []) this.objects.put(key, id);
      for (const [key, value] of set.deadLetters ?? []) this.deadLetters.put(key, value);
      for (const [key, value] of state) this.connectorState.put(key, value);
      if (set.idempotency) this.idempotency.put(set.idempotency.key, set.idempotency.record);
      if (set.dedupe) this.dedupe.put(set.dedupe.key, set.dedupe.record);
    });
    return committed.then(
      () => this.unstage(set, staged),
      (error) => {
        this.unstage(set, staged);
        throw error;
      },
    );
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

  private putIndexKeys(s: StoredEntry): void {
    const e = s.entry;
    this.byCategory.put([e.category, s.seq], e.id);
    for (const tag of new Set(e.tags ?? [])) this.byTag.put([tag, s.seq], e.id);
    this.byValid.put([Date.parse(e.valid_from), s.seq], e.id);
  }

  private stageKeys(set: WriteSet): Map<string, unknown> {
    const staged = new Map<string, unknown>();
    for (const [id, vec] of set.vectors ?? []) staged.set(`v:${id}`, vec);
    for (const [key, id] of set.objects ?? []) staged.set(`o:${key}`, id);
    if (set.idempotency) staged.set(`i:${set.idempotency.key}`, set.idempotency.record);
    if (set.dedupe) staged.set(`d:${set.dedupe.key}`, set.dedupe.record);
    for (const [key, value] of set.deadLetters ?? []) staged.set(`l:${key}`, value);
    for (const [key, value] of staged) this.pendingKeys.set(key, value);
    return staged;
  }

  private unstage(set: WriteSet, staged: Map<string, unknown>): void {
    for (const s of set.entries) if (this.pending.get(s.entry.id) === s) this.pending.delete(s.entry.id);
    for (const [key, value] of staged) if (this.pendingKeys.get(key) === value) this.pendingKeys.delete(key);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.root.close();
  }
}
