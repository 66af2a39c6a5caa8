import type { BackgroundEmbedding } from "../../../src/embedding/embed-scheduler.ts";
import { embedderStamp } from "../../../src/vault/embedding-records.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { vectorRecordDims } from "../../../src/vault/vector-records.ts";
import { type EmbeddingRecords, emptySet } from "../../../src/vault/write-set.ts";

/** What opening the vault found of its vectors against the runtime's embedder. */
export interface EmbedderCheck {
  /** The vault's vectors were made by another embedder: they go, and every entry is queued again. */
  reset: boolean;
  /** No embedder is recorded yet: the next write of an entry records this one. */
  stampDue: boolean;
  /**
   * What the check wrote, committed once `commit` resolves: the entries it queues (`queued`), and
   * their queue records (`queue`; none listed for a reset, which queues the whole vault).
   */
  written?: { queued: number; queue: Array<[number, string]>; commit: Promise<void> };
}

/**
 * Run when the tenant actor opens the vault, before its vector index: vectors of two embedders
 * are not comparable (and of other dimensions, not even searchable), so a vault whose recorded
 * embedder is not the runtime's drops its vectors and queues every entry for the background
 * embedder. A vault of before the record (or an import) is judged by its vectors' length, and its
 * entries without vector or queue record are queued (an export carries no backlog).
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
  if (stamp !== undefined || otherDims(memory, dims)) {
    const requeue = embedding.canEmbed;
    const queued = requeue ? storedCount(memory.entries) : 0;
    const written = write(vault, { reset: { stamp: signature, requeue } }, queued, []);
    return { reset: true, stampDue: false, written };
  }
  if (storedCount(memory.entries) === 0) return { reset: false, stampDue: true };
  const queue = embedding.canEmbed ? unqueued(memory) : [];
  const written = write(vault, { stamp: signature, queue }, queue.length, queue);
  return { reset: false, stampDue: false, written };
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

/** Written with the group commit; a failure (a full disk) leaves the vault as it was, for the next open. */
function write(
  vault: TenantVault,
  embedding: EmbeddingRecords,
  queued: number,
  queue: Array<[number, string]>,
): EmbedderCheck["written"] {
  try {
    const commit = vault.write(emptySet({ embedding }));
    commit.catch(() => undefined);
    return { queued, queue, commit };
  } catch {
    // Refused at once (the vault at its size ceiling): the next open checks again.
    return undefined;
  }
}
