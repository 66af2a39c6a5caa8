import type { StoredEntry } from "../models/stored-entry.ts";
import { stagedOutboundValues } from "./outbound-records.ts";
import { stagedWebhookValues } from "./webhook-records.ts";
import { dedupeRecords, type WriteSet } from "./write-set.ts";

/** A value written but not yet committed, with the commit it waits for. */
export interface Staged<T> {
  value: T;
  commit: Promise<void>;
}

/** What a write set left staged: taken back once its commit settles. */
export interface StagedSet {
  entries: Staged<StoredEntry>[];
  keys: Map<string, Staged<unknown>>;
}

/**
 * The kinds of staged keyed values: vectors, objects, idempotency, dedupe, dead letters, and the
 * webhook operations' held events (`q`), their id index (`h`) and pause states (`s`), outbound
 * subscriptions (`u`); a held event's release and a deleted subscription are staged as null.
 */
export type StagedKind = "v" | "o" | "i" | "d" | "l" | "q" | "h" | "s" | "u";

/**
 * The writes of a vault that are queued and not committed yet. lmdb-js batches writes into shared
 * commits (group commit); until a write's commit lands, features read it from here, so the owning
 * actor reads its own writes. Every pending value a read returns is observed: an answer built from
 * it must wait for its commit (TenantVault.takeObserved), or a crash could lose what a client was
 * told exists.
 */
export class Staging {
  private readonly pendingEntries = new Map<string, Staged<StoredEntry>>();
  private readonly pendingKeys = new Map<string, Staged<unknown>>();
  private observed = new Set<Promise<void>>();

  /** A pending entry, observed. */
  entry(id: string): StoredEntry | undefined {
    const staged = this.pendingEntries.get(id);
    return staged ? this.seen(staged) : undefined;
  }

  /** A pending entry, not observed: for what is not an answer (a sequence number to look up). */
  peek(id: string): StoredEntry | undefined {
    return this.pendingEntries.get(id)?.value;
  }

  hasEntry(id: string): boolean {
    return this.pendingEntries.has(id);
  }

  /** The staged entries, each to be observed (`seen`) only if it ends up in an answer. */
  stagedEntries(): Iterable<Staged<StoredEntry>> {
    return this.pendingEntries.values();
  }

  /** Pending entries, not observed: for building an index, not an answer. */
  *entries(): Generator<StoredEntry> {
    for (const staged of this.pendingEntries.values()) yield staged.value;
  }

  /** A pending keyed value, observed. */
  key(kind: StagedKind, key: string): unknown {
    const staged = this.pendingKeys.get(`${kind}:${key}`);
    return staged ? this.seen(staged) : undefined;
  }

  /** Every pending value of one kind with its key, observed. */
  *keys(kind: StagedKind): Generator<[string, unknown]> {
    const prefix = `${kind}:`;
    for (const [key, staged] of this.pendingKeys)
      if (key.startsWith(prefix)) yield [key.slice(prefix.length), this.seen(staged)];
  }

  seen<T>(staged: Staged<T>): T {
    this.observed.add(staged.commit);
    return staged.value;
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

  /** Stages what `set` writes, in the same tick as its transaction is queued. */
  stage(set: WriteSet, commit: Promise<void>): StagedSet {
    const entries = set.entries.map((s) => {
      const staged = { value: s, commit };
      this.pendingEntries.set(s.entry.id, staged);
      return staged;
    });
    const values = new Map<string, unknown>();
    for (const [id, vec] of set.vectors ?? []) values.set(`v:${id}`, vec);
    for (const [, id, vec] of set.embedding?.done ?? []) values.set(`v:${id}`, vec);
    for (const [, id, vec] of set.embedding?.fill ?? []) values.set(`v:${id}`, vec);
    for (const [key, id] of set.objects ?? []) values.set(`o:${key}`, id);
    if (set.idempotency) values.set(`i:${set.idempotency.key}`, set.idempotency.record);
    for (const { key, record } of dedupeRecords(set)) values.set(`d:${key}`, record);
    for (const [key, value] of set.deadLetters ?? []) values.set(`l:${key}`, value);
    for (const [key, value] of stagedWebhookValues(set.webhooks)) values.set(key, value);
    for (const [key, value] of stagedOutboundValues(set.outbound)) values.set(key, value);
    const keys = new Map<string, Staged<unknown>>();
    for (const [key, value] of values) {
      const staged = { value, commit };
      keys.set(key, staged);
      this.pendingKeys.set(key, staged);
    }
    return { entries, keys };
  }

  /** Takes a set's staged values back (unless a later set staged the same key since). */
  unstage({ entries, keys }: StagedSet): void {
    for (const staged of entries) {
      const id = staged.value.entry.id;
      if (this.pendingEntries.get(id) === staged) this.pendingEntries.delete(id);
    }
    for (const [key, staged] of keys) if (this.pendingKeys.get(key) === staged) this.pendingKeys.delete(key);
  }
}
