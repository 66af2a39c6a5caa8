import type { Counters } from "./counters.ts";
import type { TablesOf } from "./tables.ts";
import type { Erasure } from "./write-set.ts";

export interface ErasedTables {
  memory: TablesOf<"memory">;
  ingest: TablesOf<"ingest">;
  erase: TablesOf<"erase">;
}

/**
 * The puts of a write set's erasure (actors/tenant/erase/ decides what it holds): erased entries
 * go with every key that leads to them, their vectors and their place in the embedder's backlog;
 * the dead letters and idempotency records that carried their content go, and tombstones stay.
 * The freed pages are wiped by the compaction that follows (compact.ts).
 */
export function putErasure(t: ErasedTables, counters: Counters, erasure: Erasure): void {
  const { memory } = t;
  for (const s of erasure.entries) {
    const e = s.entry;
    memory.entries.remove(s.seq);
    memory.entryIds.remove(e.id);
    memory.rows.remove(s.seq);
    memory.embeddings.remove(s.seq);
    memory.embedQueue.remove(s.seq);
  }
  counters.countErased(erasure.entries);
  for (const tombstone of erasure.tombstones) t.erase.tombstones.put(tombstone.id, tombstone);
  for (const key of erasure.deadLetters) t.ingest.deadLetters.remove(key);
  for (const key of erasure.idempotency) memory.idempotency.remove(key);
}
