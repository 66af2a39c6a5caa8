import type { MergeRecord, MergeReview } from "../../../src/models/merge.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";

/** Keys of the merges' records in the vault's keyed-state table (the write set's `state`). */
const MERGE = "merge:";
const REVIEW = "merge-review:";
/** The first key after every review key (`;` follows `:`). */
const REVIEW_END = "merge-review;";

export const mergeKey = (id: string) => `${MERGE}${id}`;
export const reviewKey = (id: string) => `${REVIEW}${id}`;
export const reviewIdOf = (from: string, into: string) => `${from}-${into}`;

/**
 * Reads of the merge records and the review band's pairs, with the writes still committing
 * overlaid (the state table is not staged by the vault: this slice keeps its own pending values
 * until their commit lands, so the actor reads its own writes).
 */
export class MergeRecords {
  private readonly pending = new Map<string, unknown>();

  constructor(private readonly vault: TenantVault) {}

  merge(id: string): MergeRecord | undefined {
    return this.read(mergeKey(id)) as MergeRecord | undefined;
  }

  review(id: string): MergeReview | undefined {
    return this.read(reviewKey(id)) as MergeReview | undefined;
  }

  /** Reviews in id order after `after` (exclusive), committed ones and pending ones merged. */
  *reviews(after?: string): Generator<MergeReview> {
    const start = after ? `${reviewKey(after)}\u0001` : REVIEW;
    const keys = new Set<string>();
    for (const { key } of this.table().getRange({ start, end: REVIEW_END })) keys.add(String(key));
    for (const key of this.pending.keys()) if (key >= start && key < REVIEW_END) keys.add(key);
    for (const key of [...keys].sort()) {
      const review = this.read(key) as MergeReview | undefined;
      if (review) yield review;
    }
  }

  /** Notes values being written: read from here until `committed` lands. */
  staged(values: Array<[string, unknown]>, committed: Promise<void>): void {
    for (const [key, value] of values) this.pending.set(key, value);
    const settle = () => {
      for (const [key, value] of values) if (this.pending.get(key) === value) this.pending.delete(key);
    };
    committed.then(settle, settle);
  }

  private read(key: string): unknown {
    return this.pending.has(key) ? this.pending.get(key) : this.table().get(key);
  }

  private table() {
    return this.vault.tablesOf("ingest").connectorState;
  }
}
