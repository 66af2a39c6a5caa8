import { DEDUPE_THRESHOLD, type SimilarAsk, type SimilarEntry } from "../../../src/models/similar.ts";
import type { CreateEntry } from "../../../src/protocols/tenant-protocol.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import { type MergingWritten, mergingWrite } from "../merges/merge-write.ts";
import type { TenantMerges } from "../merges/merges.ts";
import type { EntryStore } from "./entry-store.ts";
import { replayed } from "./idempotency.ts";
import type { MemoryIndexes } from "./indexes.ts";
import { nearDuplicates, type SimilarContext } from "./similar.ts";
import type { MemoryWriter, Written } from "./writer.ts";

export interface SimilarWritten extends Written, Pick<MergingWritten, "merged_into" | "review"> {
  similar?: SimilarEntry[];
}

export interface SimilarWritesOptions {
  writer: MemoryWriter;
  entries: EntryStore;
  indexes: MemoryIndexes;
  clock: Clock;
  /** `dedupe: "merge"` (actors/tenant/merges/). */
  merges: TenantMerges;
}

/**
 * A single write that notices near-duplicates (similar.ts): they are found before the write (so
 * the new entry is not among them), and listed in its answer; with `dedupe`, the most similar one
 * at DEDUPE_THRESHOLD or above is the answer (200) and nothing is written. An idempotent replay
 * is answered as before (its `similar` found afresh), and an identical write is still that entry.
 */
export class SimilarWrites {
  private readonly ctx: SimilarContext;

  constructor(private readonly opts: SimilarWritesOptions) {
    const { entries, indexes } = opts;
    this.ctx = { get: (id) => entries.get(id), lexical: () => indexes.lexical(), vectors: indexes.vectors };
  }

  create(msg: CreateEntry & { similar?: SimilarAsk }): SimilarWritten {
    const ask = msg.similar;
    if (!ask) return this.opts.writer.create(msg);
    const near = nearDuplicates(this.ctx, msg.draft, ask.byVector ? msg.vector : undefined);
    if (ask.merge && !this.isReplay(msg)) return withSimilar(mergingWrite(this.opts, msg, near), near);
    const best = near[0];
    if (ask.dedupe && best && best.score >= DEDUPE_THRESHOLD && !this.isReplay(msg)) {
      const entry = this.opts.entries.get(best.id)!.entry;
      return withSimilar({ status: 200, entry, committed: Promise.resolve() }, near);
    }
    return withSimilar(this.opts.writer.create(msg), near);
  }

  /** A retry under an Idempotency-Key that wrote answers its first answer, never a near-duplicate. */
  private isReplay(msg: CreateEntry): boolean {
    return replayed(this.opts.entries, msg.idempotencyKey, msg.draft, this.opts.clock.now()) !== undefined;
  }
}

/** The answer with the near-duplicates other than the entry it answers (an identical write's own). */
function withSimilar<W extends Written>(written: W, near: SimilarEntry[]): W & SimilarWritten {
  const similar = near.filter((s) => s.id !== written.entry.id);
  return similar.length > 0 ? { ...written, similar } : written;
}
