import type { BackgroundEmbedding } from "../../../src/embedding/embed-scheduler.ts";
import { embedderStamp } from "../../../src/vault/embedding-records.ts";
import { storedById } from "../../../src/vault/seq-layout.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { vectorRecordDims } from "../../../src/vault/vector-records.ts";
import { type EmbeddingRecords, emptySet } from "../../../src/vault/write-set.ts";
import { type TierSwitch, tierSwitch } from "./tier-switch.ts";

/** What opening the vault found of its vectors against the runtime's embedder. */
export interface EmbedderCheck {
  /** The vault's vectors were made by another embedder: they go, and every entry is queued again. */
  reset: boolean;
  /** No embedder is recorded yet: the next write of an entry records this one. */
  stampDue: boolean;
  /**
   * What the check wrote, committed once `commit` resolves: the entries it queues (`queued`), and
   * their queue records (`queue`; none listed for a reset, which queues the whole vault, nor for a
   * switch that queues by a flag: `total` is then the queue's size once committed).
   */
  written?: Written;
}

interface Written {
  queued: number;
  queue: Array<[number, string]>;
  total?: number;
  /** The fast tier's vectors given to entries that had none (`tiered`): into the index at once. */
  filled: Array<[string, Float32Array]>;
  /** Entries whose vectors were dropped (tiered → local): out of the index. */
  dropped: string[];
  commit: Promise<void>;
}

/**
 * Run when the tenant actor opens the vault, before its vector index: vectors of two embedders
 * are not comparable (and of other dimensions, not even searchable), so a vault whose recorded
 * embedder is not the runtime's drops its vectors and queues every entry for the background
 * embedder, but within the sentence model's space, where a switch keeps what it can
 * (tier-switch.ts). A vault of before the record (or an import) is judged by its vectors' length,
 * and its entries without vector or queue record are queued (an export carries no backlog). Under
 * `tiered` every entry left without a vector is given the table's in the same write.
 */
export function checkEmbedder(
  vault: TenantVault,
  embedding: BackgroundEmbedding,
  dims: number,
): EmbedderCheck {
  const memory = vault.tablesOf("memory");
  const stamp = embedderStamp(vault.tablesOf("vault").meta);
  if (stamp === embedding.signature) return { reset: false, stampDue: false };
  const signature = embedding.signature;
  const switched = stamp === undefined ? undefined : tierSwitch(memory, stamp, signature);
  if (switched) return { reset: false, stampDue: false, written: keep(vault, embedding, switched) };
  if (stamp !== undefined || otherDims(memory, dims)) {
    const requeue = embedding.canEmbed;
    const queued = requeue ? storedCount(memory.entries) : 0;
    const reset = { reset: { stamp: signature, requeue } };
    const written = write(vault, reset, { queued, queue: [], total: queued, filled: [], dropped: [] });
    return { reset: true, stampDue: false, written };
  }
  if (storedCount(memory.entries) === 0) return { reset: false, stampDue: true };
  const written = keep(vault, embedding, { records: { stamp: signature }, dropped: [] });
  return { reset: false, stampDue: false, written };
}

/** The vectors kept: the entries with neither vector nor queue record queued, given the fast tier's vector. */
function keep(vault: TenantVault, embedding: BackgroundEmbedding, how: TierSwitch): Written | undefined {
  const memory = vault.tablesOf("memory");
  const queue = embedding.canEmbed ? unqueued(memory) : [];
  const fill = embedding.fastVector ? unvectored(memory, embedding.fastVector) : [];
  const records: EmbeddingRecords = { ...how.records, queue };
  if (fill.length > 0) records.fill = fill;
  const filled = fill.map(([, id, vector]) => [id, vector] as [string, Float32Array]);
  const total = how.total === undefined ? undefined : how.total + queue.length;
  return write(vault, records, { queued: queue.length, queue, total, filled, dropped: how.dropped });
}

/** Whether the stored vectors have another length than the runtime's (one record read). */
function otherDims(memory: TableViews<"memory">, dims: number): boolean {
  for (const { value } of memory.embeddings.getRange({ limit: 1 })) return vectorRecordDims(value) !== dims;
  return false;
}

/** Entries with neither a vector nor a queue record; counted first, so a whole vault is read only then. */
function unqueued(memory: TableViews<"memory">): Array<[number, string]> {
  const held = storedCount(memory.embeddings) + storedCount(memory.embedQueue);
  if (held >= storedCount(memory.entries)) return [];
  const seqs = new Set<number>([...memory.embeddings.getKeys(), ...memory.embedQueue.getKeys()]);
  const missing: Array<[number, string]> = [];
  for (const { key, value } of memory.rows.getRange()) if (!seqs.has(key)) missing.push([key, value[0]]);
  return missing;
}

/** Entries without a vector, each with the fast tier's (microseconds a text); counted first. */
function unvectored(
  memory: TableViews<"memory">,
  vectorOf: (text: string) => Float32Array,
): Array<[number, string, Float32Array]> {
  if (storedCount(memory.embeddings) >= storedCount(memory.entries)) return [];
  const out: Array<[number, string, Float32Array]> = [];
  for (const { key, value } of memory.rows.getRange()) {
    if (memory.embeddings.doesExist(key)) continue;
    const stored = storedById(memory, value[0], key);
    if (stored) out.push([key, value[0], vectorOf(stored.entry.content)]);
  }
  return out;
}

/** Written with the group commit; a failure (a full disk) leaves the vault as it was, for the next open. */
function write(
  vault: TenantVault,
  embedding: EmbeddingRecords,
  written: Omit<Written, "commit">,
): Written | undefined {
  try {
    const commit = vault.write(emptySet({ embedding }));
    commit.catch(() => undefined);
    return { ...written, commit };
  } catch {
    // Refused at once (the vault at its size ceiling): the next open checks again.
    return undefined;
  }
}
