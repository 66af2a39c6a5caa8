import { Conflict, NotFound, ValidationFailed } from "../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { Category } from "../../../src/models/category.ts";
import { isoOf } from "../../../src/models/common.ts";
import type { MergeRecord, MergeReview } from "../../../src/models/merge.ts";
import { inScope, type ScopeFilter, subjectOf } from "../../../src/models/scope.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { WriteSet } from "../../../src/vault/write-set.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import { MergeRecords, mergeKey, reviewIdOf, reviewKey } from "./merge-records.ts";

export interface MergeAsk {
  category: Category;
  from: string;
  into: string;
  by: string;
  score: number | null;
  /** A subject-restricted caller's reach: entries outside it are not there for it (404). */
  within?: ScopeFilter["within"];
}

/** What a merge writes: the absorbed entry hidden, the change log's two sides, the record. */
export interface MergeParts {
  record: MergeRecord;
  set: Pick<WriteSet, "entries" | "changes" | "state">;
}

/**
 * Merges that keep both sides (docs/memory.md, "Merging near-duplicates"). The absorbed entry stays
 * recorded: its `expired_at` is the merge's time (the read model shows the survivor alone, `as_of`
 * an earlier time shows each), the change log links the pair (`entry.merged` on the absorbed,
 * `entry.absorbed` on the survivor: history's `merged_into`/`merged_from`), and a record keyed by
 * the absorbed id says who merged what when. The survivor is not touched: its content, origin and
 * trust stay its own, so a merge never raises anything's trust. An un-merge clears the absorbed
 * entry's `expired_at` and records itself on both sides. Every change is one write set.
 */
export class TenantMerges {
  readonly records: MergeRecords;

  constructor(
    private readonly vault: TenantVault,
    private readonly entries: EntryStore,
    private readonly clock: Clock,
  ) {
    this.records = new MergeRecords(vault);
  }

  /** Merges two live entries of one category and one subject. */
  merge(ask: MergeAsk): { record: MergeRecord; committed: Promise<void> } {
    if (ask.from === ask.into) throw new ValidationFailed("an entry cannot be merged into itself", []);
    const from = this.live(ask.category, ask.from, ask.within);
    const into = this.live(ask.category, ask.into, ask.within);
    if (subjectOf(from.entry) !== subjectOf(into.entry))
      throw new ValidationFailed("entries of two subjects are never merged", [
        { path: "/into", message: "another subject" },
      ]);
    const now = this.clock.now();
    const parts = this.mergeParts(from, ask.into, ask.by, ask.score, now);
    return { record: parts.record, committed: this.write({ created: [], ...parts.set, at: now }) };
  }

  /** What merging `from` (stored, or being written) into `into` at `now` writes. */
  mergeParts(from: StoredEntry, into: string, by: string, score: number | null, now: number): MergeParts {
    const at = isoOf(now);
    const { id, category } = from.entry;
    const record: MergeRecord = {
      id,
      category,
      from: id,
      into,
      score,
      status: "merged",
      at,
      by,
      unmerged_at: null,
      unmerged_by: null,
    };
    return {
      record,
      set: {
        entries: [{ ...from, entry: { ...from.entry, expired_at: at } }],
        changes: [
          { type: "entry.merged", id, category, by, related: into },
          { type: "entry.absorbed", id: into, category, by, related: id },
        ],
        state: [[mergeKey(id), record]],
      },
    };
  }

  /** Restores both sides of a merge: the absorbed entry is live again. */
  unmerge(
    id: string,
    by: string,
    within?: ScopeFilter["within"],
  ): { record: MergeRecord; committed: Promise<void> } {
    const record = this.record(id, within);
    if (record.status !== "merged") throw new Conflict(`merge ${id} was undone at ${record.unmerged_at}`);
    const now = this.clock.now();
    const stored = this.entries.get(record.from)!;
    const restored: MergeRecord = { ...record, status: "unmerged", unmerged_at: isoOf(now), unmerged_by: by };
    const entries =
      stored.entry.expired_at === record.at
        ? [{ ...stored, entry: { ...stored.entry, expired_at: null } }]
        : [];
    const { category, from, into } = record;
    const committed = this.write({
      entries,
      created: [],
      changes: [
        { type: "entry.unmerged", id: from, category, by, related: into },
        { type: "entry.unmerged", id: into, category, by, related: from },
      ],
      state: [[mergeKey(id), restored]],
      at: now,
    });
    return { record: restored, committed };
  }

  /** The merge named by its absorbed entry's id; 404 when none, or outside the caller's reach. */
  record(id: string, within?: ScopeFilter["within"]): MergeRecord {
    const record = this.records.merge(id);
    const entry = record && this.entries.get(record.from)?.entry;
    if (!record || !entry || (within && !inScope(entry, { within })))
      throw new NotFound(`no merge ${id} in this tenant`);
    return record;
  }

  /** A pair for the review band, unless this pair was flagged before (a rejected pair never is again). */
  flag(
    from: string,
    into: string,
    category: Category,
    score: number,
    now: number,
  ): [string, MergeReview] | undefined {
    const id = reviewIdOf(from, into);
    if (this.records.review(id)) return undefined;
    const review: MergeReview = {
      id,
      category,
      from,
      into,
      score,
      status: "pending",
      flagged_at: isoOf(now),
      decided_at: null,
      decided_by: null,
    };
    return [reviewKey(id), review];
  }

  /** A review; 404 when none, or when its entry is outside the caller's reach. */
  review(id: string, within?: ScopeFilter["within"]): MergeReview {
    const review = this.records.review(id);
    const entry = review && this.entries.get(review.from)?.entry;
    if (!review || !entry || (within && !inScope(entry, { within })))
      throw new NotFound(`no review ${id} in this tenant`);
    return review;
  }

  /** Accept (merge the pair) or reject (keep both, never flagged again): 409 once decided. */
  decide(id: string, accept: boolean, by: string, within?: ScopeFilter["within"]) {
    const review = this.review(id, within);
    if (review.status !== "pending")
      throw new Conflict(`review ${id} was ${review.status} at ${review.decided_at}`);
    const now = this.clock.now();
    const decided: MergeReview = {
      ...review,
      status: accept ? "accepted" : "rejected",
      decided_at: isoOf(now),
      decided_by: by,
    };
    const state: Array<[string, unknown]> = [[reviewKey(id), decided]];
    if (!accept)
      return { review: decided, committed: this.write({ entries: [], created: [], state, at: now }) };
    const from = this.live(review.category, review.from, within);
    this.live(review.category, review.into, within);
    const parts = this.mergeParts(from, review.into, by, review.score, now);
    const set = { created: [], ...parts.set, state: [...(parts.set.state ?? []), ...state], at: now };
    return { review: decided, merge: parts.record, committed: this.write(set) };
  }

  /** Pending reviews of the given categories in id order, a page after `after`. */
  pending(categories: Category[], limit: number, after?: string, within?: ScopeFilter["within"]) {
    const allowed = new Set(categories);
    const items: MergeReview[] = [];
    for (const review of this.records.reviews(after)) {
      if (review.status !== "pending" || !allowed.has(review.category)) continue;
      const entry = this.entries.get(review.from)?.entry;
      if (!entry || (within && !inScope(entry, { within }))) continue;
      if (items.length === limit) return { items, next_cursor: items[items.length - 1]!.id };
      items.push(review);
    }
    return { items, next_cursor: null };
  }

  /** Writes a set, the state values it carries read from here until committed. */
  write(set: WriteSet): Promise<void> {
    const committed = this.vault.write(set);
    if (set.state) this.records.staged(set.state, committed);
    return committed;
  }

  /** A live entry of the category in the caller's reach: 404 when none, 409 when merged or gone. */
  private live(category: Category, id: string, within?: ScopeFilter["within"]): StoredEntry {
    const stored = this.entries.get(id);
    if (!stored || stored.entry.category !== category || (within && !inScope(stored.entry, { within })))
      throw new NotFound(`no ${category} ${id} in this tenant`);
    const merged = this.records.merge(id);
    if (merged?.status === "merged")
      throw new Conflict(`${category} ${id} is already merged into ${merged.into}`);
    if (stored.entry.expired_at !== null || stored.entry.invalidated_at !== null)
      throw new Conflict(`${category} ${id} is no longer live (retracted, superseded or corrected)`);
    return stored;
  }
}
