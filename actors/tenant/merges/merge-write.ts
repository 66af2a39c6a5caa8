import { mergeVeto } from "../../../src/merge/merge-veto.ts";
import { MERGE_THRESHOLD, REVIEW_THRESHOLD } from "../../../src/models/merge.ts";
import type { SimilarEntry } from "../../../src/models/similar.ts";
import type { CreateEntry } from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { EntryStore } from "../memory/entry-store.ts";
import { idempotencyRecord } from "../memory/idempotency.ts";
import type { MemoryWriter, Written } from "../memory/writer.ts";
import type { TenantMerges } from "./merges.ts";

export interface MergingWritten extends Written {
  /** The survivor the new entry was merged into. */
  merged_into?: string;
  /** The review band's pair the write was flagged in. */
  review?: string;
}

export interface MergingDeps {
  writer: MemoryWriter;
  entries: EntryStore;
  merges: TenantMerges;
  clock: Clock;
}

/**
 * `?dedupe=merge`: the new entry is written whatever its near-duplicates (nothing is dropped). The
 * most similar one at MERGE_THRESHOLD or above that the veto lets through (merge-veto.ts: another
 * figure, date, name, a negation, plan against done) absorbs it in the same transaction; otherwise
 * the most similar one at REVIEW_THRESHOLD or above, vetoed or in the band, is flagged for review.
 */
export function mergingWrite(deps: MergingDeps, msg: CreateEntry, near: SimilarEntry[]): MergingWritten {
  const now = deps.clock.now();
  const prepared = deps.writer.prepare(msg.draft, msg.createdBy, now, msg);
  if ("existing" in prepared)
    return { status: 200, entry: prepared.existing.entry, committed: Promise.resolve() };
  const content = msg.draft.content;
  const vetoed = (s: SimilarEntry) => mergeVeto(content, deps.entries.get(s.id)!.entry.content) !== undefined;
  const survivor = near.find((s) => s.score >= MERGE_THRESHOLD && !vetoed(s));
  const flagged = survivor ? undefined : near.find((s) => s.score >= REVIEW_THRESHOLD);
  const id = prepared.stored.entry.id;
  const set = deps.writer.writeSetOf(prepared, msg.vector);
  const answer: Pick<MergingWritten, "merged_into" | "review"> = {};
  if (survivor) {
    const parts = deps.merges.mergeParts(prepared.stored, survivor.id, msg.createdBy, survivor.score, now);
    prepared.stored = parts.set.entries[0]!;
    set.entries[0] = prepared.stored;
    set.created = [prepared.stored];
    set.changes = [...(set.changes ?? []), ...(parts.set.changes ?? [])];
    set.state = parts.set.state;
    answer.merged_into = survivor.id;
  } else if (flagged) {
    const review = deps.merges.flag(id, flagged.id, msg.draft.category, flagged.score, now);
    if (review) {
      set.state = [review];
      answer.review = review[1].id;
    }
  }
  const entry = prepared.stored.entry;
  if (msg.idempotencyKey) set.idempotency = idempotencyRecord(msg.idempotencyKey, msg.draft, now, 201, entry);
  const committed = deps.writer.commit(set, prepared, msg.vector);
  if (set.state) deps.merges.records.staged(set.state, committed);
  return { status: 201, entry, committed, ...answer };
}
