import type { Database, RootDatabase } from "lmdb";
import { CATEGORIES, type Category } from "../models/category.ts";
import type { StoredEntry } from "../models/stored-entry.ts";
import { storageFault } from "./storage-faults.ts";
import { storedCount } from "./tables.ts";

/** Meta key of the counters' version: present once a vault has counters. */
const COUNTERS_KEY = "counters";
const COUNTERS_VERSION = 1;
/** Meta keys of the counters: entries per category, and entries written per UTC day and category. */
const countKey = (category: string) => `n:${category}`;
const dayKey = (day: string, category: string) => `w:${day}:${category}`;

/**
 * The dashboard's counters, kept in the `meta` table: entries per category and entries written per
 * day and category. The tenant actor is the only writer, so the latest value of each counter is
 * kept here and written with every set that changes it; a failed commit drops them (`forget`) and
 * they are recounted from the entries once no write is in flight, or at the next open.
 */
export class Counters {
  /** The latest value of each counter written since open. */
  private readonly latest = new Map<string, number>();

  constructor(
    private readonly root: RootDatabase,
    private readonly meta: Database<number, string>,
    private readonly entries: Database<StoredEntry, number>,
  ) {}

  /** Committed entries (the B-tree's own count). */
  entryCount(): number {
    return storedCount(this.entries);
  }

  /** Committed entries per category (a counter kept with each write, not a count of keys). */
  perCategory(): Record<Category, number> {
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
    for (const [key, value] of this.latest) if (key >= start && key < end) values.set(key, value);
    return [...values]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, writes]) => {
        const [, day, category] = key.split(":") as [string, string, Category];
        return { day, category, writes };
      });
  }

  /** Counts new entries (plain puts: they join the write set's transaction). */
  countWrites(created: StoredEntry[]): void {
    if (created.length === 1) {
      const { entry } = created[0]!;
      this.bump(countKey(entry.category), 1);
      this.bump(dayKey(entry.recorded_at.slice(0, 10), entry.category), 1);
      return;
    }
    // A batch puts each counter it changes once, not once per entry.
    const by = new Map<string, number>();
    const add = (key: string, n: number) => by.set(key, (by.get(key) ?? 0) + n);
    for (const { entry } of created) {
      add(countKey(entry.category), 1);
      add(dayKey(entry.recorded_at.slice(0, 10), entry.category), 1);
    }
    for (const [key, n] of by) this.bump(key, n);
  }

  /** Uncounts erased entries from their category (the days keep what was written then). */
  countErased(erased: StoredEntry[]): void {
    const by = new Map<string, number>();
    for (const { entry } of erased)
      by.set(countKey(entry.category), (by.get(countKey(entry.category)) ?? 0) - 1);
    for (const [key, n] of by) this.bump(key, n);
  }

  /** A commit failed: what is held in memory may include it, so it goes until the recount. */
  forget(): void {
    this.latest.clear();
  }

  /** Counters recounted from the committed entries, in memory at once and on disk with the next commit. */
  recount(): void {
    const counts = this.countEntries();
    this.latest.clear();
    for (const [key, value] of counts) this.latest.set(key, value);
    for (const category of CATEGORIES)
      if (!counts.has(countKey(category))) this.latest.set(countKey(category), 0);
    this.storeCounts(counts);
    // Should this write fail too, the next open sees counts that disagree with the entries and recounts.
    void this.meta
      .put(COUNTERS_KEY, COUNTERS_VERSION)
      .catch(storageFault)
      .catch(() => undefined);
  }

  /**
   * Vaults written before the counters existed recount on open; so do vaults whose counts disagree
   * with their entries (a failed commit followed by a queued one that carried its counts, and no
   * recount written before the process stopped).
   */
  backfill(): void {
    if (this.meta.get(COUNTERS_KEY) !== undefined && this.countsAgree()) return;
    const counts = this.countEntries();
    this.root.transactionSync(() => {
      this.storeCounts(counts);
      this.meta.put(COUNTERS_KEY, COUNTERS_VERSION);
    });
  }

  private counterOf(key: string): number {
    return this.latest.get(key) ?? this.meta.get(key) ?? 0;
  }

  private bump(key: string, by: number): void {
    const value = Math.max(0, this.counterOf(key) + by);
    this.latest.set(key, value);
    this.meta.put(key, value);
  }

  private countsAgree(): boolean {
    let sum = 0;
    for (const category of CATEGORIES) sum += this.meta.get(countKey(category)) ?? 0;
    return sum === this.entryCount();
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
}
