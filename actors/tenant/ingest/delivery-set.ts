import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { ChangeDraft } from "../../../src/models/change.ts";
import type { DedupeRecord, WriteSet } from "../../../src/vault/write-set.ts";
import { type BatchItem, batchSet } from "../memory/batch.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import type { IngestStore } from "./ingest-store.ts";
import { mergeParts, type WebhookPart } from "./webhook-parts.ts";

/** What the events of a delivery are read against: the tenant's tables, their pending writes overlaid. */
export interface DeliveryBase {
  store: Pick<IngestStore, "deduped" | "objectLatest">;
  entries: Pick<EntryStore, "get">;
}

/**
 * A delivery's writes gathered into one write set, each event's part added in the order of its
 * events, as a batch of the memory API is one set (batch.ts). Until the set is written, the events
 * after one read what it wrote from here, over the tenant's tables: a second event of the same id
 * is a duplicate, a draft supersedes or resolves an entry of an earlier event, a timeline has the
 * members added before. Nothing reaches the vault before the last event is done, so a refusal
 * (507) leaves nothing of the delivery written and its redelivery is applied whole.
 */
export class DeliverySet {
  /** Each entry in its final state: a later event's update of an earlier one's entry replaces it. */
  private readonly entries = new Map<string, StoredEntry>();
  private readonly created: BatchItem[] = [];
  private readonly changes: ChangeDraft[] = [];
  private readonly objects = new Map<string, string>();
  private readonly dedupe = new Map<string, DedupeRecord>();
  private readonly deadLetters = new Map<string, unknown>();
  private readonly state = new Map<string, unknown>();
  private stateSeq: number | undefined;
  private readonly webhooks: WebhookPart[] = [];
  private at: number | undefined;
  private parts = 0;

  constructor(private readonly base: DeliveryBase) {}

  deduped(key: string): DedupeRecord | undefined {
    return this.dedupe.get(key) ?? this.base.store.deduped(key);
  }

  objectLatest(key: string): string | undefined {
    return this.objects.get(key) ?? this.base.store.objectLatest(key);
  }

  get(id: string): StoredEntry | undefined {
    return this.entries.get(id) ?? this.base.entries.get(id);
  }

  /**
   * One event's part (an entry's set, a dead letter's, a log record); `fresh`: the new entry it
   * brings, with its vector, indexed once the set is written. A connector's state keeps the last
   * value of each key and the last sequence given, as a held delivery's does (hold.ts): its
   * snapshots come in order within a delivery.
   */
  add(part: Partial<WriteSet>, fresh?: BatchItem): void {
    this.parts++;
    for (const s of part.entries ?? []) this.entries.set(s.entry.id, s);
    if (fresh) this.created.push(fresh);
    this.changes.push(...(part.changes ?? []));
    for (const [key, id] of part.objects ?? []) this.objects.set(key, id);
    if (part.dedupe) this.dedupe.set(part.dedupe.key, part.dedupe.record);
    for (const [key, value] of part.deadLetters ?? []) this.deadLetters.set(key, value);
    if (part.state && part.state.length > 0) {
      for (const [key, value] of part.state) this.state.set(key, value);
      this.stateSeq = part.stateSeq ?? this.stateSeq;
    }
    if (part.webhooks) this.webhooks.push({ webhooks: part.webhooks });
    // The changes' transaction time: the latest reading, the closest to the commit.
    if (part.at !== undefined) this.at = Math.max(this.at ?? part.at, part.at);
  }

  /** The new entries of the set, to index once it is written. */
  get fresh(): BatchItem[] {
    return this.created;
  }

  /** The delivery's one write set; undefined when no event added anything (a delivery of none). */
  toSet(now: number): WriteSet | undefined {
    if (this.parts === 0) return undefined;
    const set = batchSet(this.created, [...this.entries.values()], this.at ?? now);
    const [dedupe, ...dedupes] = [...this.dedupe].map(([key, record]) => ({ key, record }));
    return {
      ...set,
      changes: this.changes,
      ...(this.objects.size > 0 ? { objects: [...this.objects] } : {}),
      ...(dedupe ? { dedupe } : {}),
      ...(dedupes.length > 0 ? { dedupes } : {}),
      ...(this.deadLetters.size > 0 ? { deadLetters: [...this.deadLetters] } : {}),
      ...(this.state.size > 0 ? { state: [...this.state], stateSeq: this.stateSeq } : {}),
      ...(this.webhooks.length > 0 ? mergeParts(this.webhooks) : {}),
    };
  }
}
