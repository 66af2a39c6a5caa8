import { modelSpaceKindOf } from "../../../src/embedding/vector-tiers.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { EmbeddingRecords } from "../../../src/vault/write-set.ts";

/** What a switch of embedder within the sentence model's space writes, and what it means for the index. */
export interface TierSwitch {
  records: EmbeddingRecords;
  /** The queue's size once committed, when the write queues by a flag (`queue-vectored`). */
  total?: number;
  /** Entries whose vectors the write drops (the table's, tiered → local): they leave the index. */
  dropped: string[];
}

/**
 * A switch between embedders of the sentence model's one 512-d space (vector-tiers.ts) keeps what
 * the new one would have made itself, rather than dropping every vector as another switch does:
 *
 * - `local` → `tiered`: the model's vectors are already the upgrade: kept, none queued;
 * - `static` → `tiered`: the table's are kept and each queued for the model's upgrade;
 * - `tiered` → `local`: the model's are kept; the table's (their entries still queued) are dropped,
 *   their queue records kept, so the model embeds exactly those.
 *
 * Entries without a vector stay queued (and are given the table's vector under `tiered`, by the
 * caller). Any other switch (to `static`, from `static` to `local`) is undefined here: a reset.
 */
export function tierSwitch(memory: TableViews<"memory">, from: string, to: string): TierSwitch | undefined {
  const was = modelSpaceKindOf(from);
  const now = modelSpaceKindOf(to);
  if (!was || !now) return undefined;
  if (now === "tiered" && was === "local") return { records: { stamp: to }, dropped: [] };
  if (now === "tiered" && was === "static") {
    // Every entry with a vector is queued, and those without one are queued already or by the caller.
    const total = storedCount(memory.embedQueue) + vectoredUnqueued(memory);
    return { records: { stamp: to, retier: "queue-vectored" }, total, dropped: [] };
  }
  if (now === "local" && was === "tiered") {
    const dropped: string[] = [];
    for (const { key, value } of memory.embedQueue.getRange())
      if (memory.embeddings.doesExist(key)) dropped.push(value);
    return { records: { stamp: to, retier: "drop-queued" }, dropped };
  }
  return undefined;
}

/** Entries with a vector and no queue record (read by key, the smaller table walked). */
function vectoredUnqueued(memory: TableViews<"memory">): number {
  let n = 0;
  for (const seq of memory.embeddings.getKeys()) if (!memory.embedQueue.doesExist(seq)) n++;
  return n;
}
