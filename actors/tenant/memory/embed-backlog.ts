import type {
  BackgroundEmbedding,
  EmbedderState,
  EmbedItem,
  EmbedQueue,
} from "../../../src/embedding/embed-scheduler.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import { storedById } from "../../../src/vault/seq-layout.ts";
import { storedCount, type TableViews } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet, type WriteSet } from "../../../src/vault/write-set.ts";
import type { EmbedderCheck } from "./embedder-check.ts";
import type { MemoryIndexes } from "./indexes.ts";

/** An item whose vector came back: where it is queued and whose it is. */
export interface EmbeddedItem {
  seq: number;
  id: string;
}

/** An item that failed alone waits 1 s, 2 s, 4 s … at most 5 minutes before it is taken again. */
const ITEM_WAIT_MS = 1_000;
const MAX_ITEM_WAIT_MS = 5 * 60_000;

/** How an item fared with the embedder: in failed batches, and alone. */
interface ItemFailures {
  lone: number;
  notBefore: number;
}

export interface BacklogOptions {
  tenantId: string;
  vault: TenantVault;
  clock: Clock;
  indexes: MemoryIndexes;
  embedding: BackgroundEmbedding;
  /** What opening the vault found and wrote (embedder-check.ts). */
  check: EmbedderCheck;
  /**
   * Asks the tenant actor itself to store vectors (`embed.store`, answered by `store`), so they
   * are written between its other messages; resolves once stored.
   */
  storeVectors(items: EmbeddedItem[], vectors: Float32Array[]): Promise<unknown>;
  /** New vectors are in the index: their move into the graph is scheduled. */
  onIndexed(): void;
}

/**
 * The tenant's backlog of entries waiting for their vector, kept in the vault (`embed-queue`,
 * seq → id) and worked on by the runtime's background embedder (src/embedding/embed-scheduler.ts):
 *
 * - a write queues each new entry it brings without a vector, in the same transaction (`annotate`);
 * - the scheduler takes the oldest items not already handed out (`take`) and brings their vectors
 *   back; the actor stores each vector and removes its queue record in one transaction (`store`),
 *   then indexes it. An entry that has a vector, or is no longer queued, gets none: never two;
 * - a restart finds the queue as committed and resumes; what was in flight is simply taken again;
 * - an item whose batch failed is taken alone afterwards, so a text the embedder refuses fails only
 *   itself; one that fails alone waits longer each time (up to 5 minutes) while the others go on.
 */
export class EmbedBacklog implements EmbedQueue {
  private readonly memory: TableViews<"memory">;
  /** Sequences handed out and not settled yet (embedding, or being stored). */
  private readonly handedOut = new Set<number>();
  /** Sequences whose vector is written and not committed yet. */
  private readonly storing = new Set<number>();
  /** Entries erased since the actor started, whose vectors may still be on their way. */
  private readonly erased = new Set<string>();
  /** Items that failed since the actor started (a restart gives them a fresh start). */
  private readonly failures = new Map<number, ItemFailures>();
  /** Wakes the embedder when the earliest item waiting after a failure may be taken again. */
  private retryTimer: { at: number; handle: TimerHandle } | undefined;
  private stampDue: boolean;
  /**
   * Queue records written and not seen committed yet (seq → id); the committed ones are counted by
   * the table. lmdb-js shows a commit to reads (a read transaction begun after its write thread
   * committed) before the commit's promise settles here, and a write-through (cluster mode's
   * changelog append) holds that promise longer still: no callback marks the point the records
   * show, so a record the table holds is dropped from here when read (`pending`, `take`), in the
   * same read transaction as the table's count. A record leaves the table only once `take` (the
   * way to `store`) or `forget` (an erasure) dropped it here, so one staged and not in the table
   * is not committed yet: neither counted twice nor missed. Each record is looked up only until
   * its commit shows: a lookup per record still committing, never a read of the whole queue.
   */
  private readonly staged = new Map<number, string>();
  /**
   * The queue's size once the opening's write commits, when it queues by a flag (a reset's whole
   * vault, a switch's `queue-vectored`): counted so until it commits.
   */
  private resetting: number | undefined;
  /** Vectors the opening's write gives entries that had none (`tiered`), until it commits. */
  private filling = 0;
  private readonly detach: () => void;
  private closed = false;

  constructor(private readonly opts: BacklogOptions) {
    this.memory = opts.vault.tablesOf("memory");
    const { stampDue, written } = opts.check;
    this.stampDue = stampDue;
    if (written) this.stageOpening(written);
    this.detach = opts.embedding.attach(opts.tenantId, this);
  }

  /** The queue records opening the vault wrote are counted until they commit; then taken. */
  private stageOpening(written: NonNullable<EmbedderCheck["written"]>): void {
    this.resetting = written.total;
    this.filling = written.filled.length;
    this.stage(written.queue);
    const settled = () => {
      this.resetting = undefined;
      this.filling = 0;
      this.unstage(written.queue);
    };
    written.commit.then(() => {
      settled();
      if (!this.closed) this.opts.embedding.wake(this.opts.tenantId);
    }, settled);
  }

  /** The background embedder's state, for health; none under `client`, which embeds nothing. */
  embedderState(): EmbedderState | undefined {
    return this.opts.embedding.canEmbed ? this.opts.embedding.state() : undefined;
  }

  /**
   * Entries waiting for their vector. Every queue record, committed or still committing, but under
   * `tiered`, where a write brings its fast tier's vector and is queued for the upgrade too: there
   * only the entries without a vector record (a vault reset for another embedder, or imported).
   */
  pending(): number {
    const queued = this.queued();
    if (!this.upgrading) return queued;
    const missing = storedCount(this.memory.entries) - storedCount(this.memory.embeddings) - this.filling;
    return Math.max(0, Math.min(queued, missing));
  }

  /** Whether writes' vectors are the fast tier's, queued for the model's (`tiered`). */
  get upgrading(): boolean {
    return this.opts.embedding.upgrades === true;
  }

  /** Entries whose vector is the fast tier's and waits for the model's (`tiered`; 0 otherwise). */
  upgrades(): number {
    return this.upgrading ? this.queued() - this.pending() : 0;
  }

  /** Queue records committed, and those still committing. */
  private queued(): number {
    // A reset's records are `resetting` until it settles; those of writes after it are staged.
    for (const seq of this.staged.keys()) if (this.memory.embedQueue.doesExist(seq)) this.staged.delete(seq);
    return (this.resetting ?? storedCount(this.memory.embedQueue)) + this.staged.size;
  }

  private stage(queue: Array<[number, string]>): void {
    for (const [seq, id] of queue) this.staged.set(seq, id);
  }

  /** The write settled: its records are in the table (or were never written). */
  private unstage(queue: Array<[number, string]>): void {
    for (const [seq] of queue) this.staged.delete(seq);
  }

  /**
   * Adds to a write set what the backlog needs of it: a queue record for each new entry without a
   * vector (none under `client`, whose callers send vectors; each new entry under `tiered`, whose
   * vector is upgraded), and the embedder's stamp if due.
   */
  annotate(set: WriteSet): void {
    if (set.created.length === 0) return;
    const embedding = set.embedding ?? {};
    if (this.stampDue) embedding.stamp = this.opts.embedding.signature;
    if (this.opts.embedding.canEmbed) {
      const upgraded = this.upgrading ? [] : (set.vectors ?? []);
      const vectored = new Set(upgraded.map(([id]) => id));
      const queue = set.created.filter((s) => !vectored.has(s.entry.id)).map((s) => [s.seq, s.entry.id]);
      if (queue.length > 0) embedding.queue = [...(embedding.queue ?? []), ...(queue as [number, string][])];
    }
    if (embedding.stamp === undefined && embedding.queue === undefined) return;
    set.embedding = embedding;
    this.stage(embedding.queue ?? []);
  }

  /**
   * A write `annotate` saw has settled: its queue records are counted by the table now (or were
   * never written); once committed, the stamp is recorded and the records can be taken.
   */
  settled(set: WriteSet, committed: boolean): void {
    const queued = set.embedding?.queue?.length ?? 0;
    this.unstage(set.embedding?.queue ?? []);
    if (!committed) return;
    if (set.embedding?.stamp !== undefined) this.stampDue = false;
    if (queued > 0 && !this.closed) this.opts.embedding.wake(this.opts.tenantId);
  }

  /**
   * The oldest committed items not handed out (the scheduler's side, between messages); when only
   * items that failed before are left, the oldest of them whose wait is over, alone.
   */
  take(max: number): EmbedItem[] {
    const items: EmbedItem[] = [];
    // Until a reset commits, the queue still holds what it clears.
    if (this.closed || this.resetting !== undefined) return items;
    const now = this.opts.clock.now();
    let retry: EmbedItem | undefined;
    for (const { key: seq, value: id } of this.memory.embedQueue.getRange()) {
      if (items.length >= max) break;
      // Committed: counted by the table now, and may leave it (stored) before its write settles.
      this.staged.delete(seq);
      if (this.handedOut.has(seq) || this.erased.has(id)) continue;
      const failed = this.failures.get(seq);
      if (failed && (retry || failed.notBefore > now)) continue;
      const stored = storedById(this.memory, id, seq);
      if (!stored) continue;
      const item = { seq, id, text: stored.entry.content };
      if (failed) retry = item;
      else items.push(item);
    }
    const taken = items.length > 0 || !retry ? items : [retry];
    for (const { seq } of taken) this.handedOut.add(seq);
    return taken;
  }

  embedded(items: EmbedItem[], vectors: Float32Array[]): void {
    // The actor stopped: the queue records stay, and its next start takes them again.
    if (this.closed) return;
    const done = items.map(({ seq, id }) => ({ seq, id }));
    this.opts.storeVectors(done, vectors).catch(() => this.release(items));
  }

  failed(items: EmbedItem[]): void {
    const now = this.opts.clock.now();
    for (const { seq } of items) {
      this.handedOut.delete(seq);
      const failed = this.failures.get(seq) ?? { lone: 0, notBefore: 0 };
      if (items.length === 1) {
        failed.lone++;
        failed.notBefore = now + Math.min(MAX_ITEM_WAIT_MS, ITEM_WAIT_MS * 2 ** (failed.lone - 1));
        this.wakeAt(failed.notBefore - now);
      }
      this.failures.set(seq, failed);
    }
  }

  /** The embedder is woken for this tenant once `ms` have passed (the earliest wait wins). */
  private wakeAt(ms: number): void {
    const at = this.opts.clock.now() + ms;
    if (this.closed || (this.retryTimer && this.retryTimer.at <= at)) return;
    this.retryTimer?.handle.cancel();
    const handle = this.opts.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.opts.embedding.wake(this.opts.tenantId);
    }, ms);
    this.retryTimer = { at, handle };
  }

  /**
   * `embed.store`: each vector is written with the removal of its queue record, in one transaction,
   * then indexed. One whose entry already has a vector, is no longer queued or was erased meanwhile
   * is dropped. Under `tiered` the queue record is what says a vector is the fast tier's: the
   * model's replaces it, once, since the same transaction removes the record.
   */
  store(items: EmbeddedItem[], vectors: Float32Array[]): Promise<void> {
    const done: Array<[number, string, Float32Array]> = [];
    items.forEach(({ seq, id }, i) => {
      if (this.erased.has(id) || this.storing.has(seq) || !this.memory.embedQueue.doesExist(seq)) return;
      if (storedById(this.memory, id, seq) === undefined) return;
      if (!this.upgrading && this.memory.embeddings.doesExist(seq)) return;
      done.push([seq, id, vectors[i]!]);
    });
    for (const [seq] of done) this.storing.add(seq);
    const written =
      done.length > 0 ? this.opts.vault.write(emptySet({ embedding: { done } })) : Promise.resolve();
    // Searchable at once, as a write's own vector is; should the commit fail, they go again.
    const added = this.index(done);
    return written
      .catch((error) => {
        // Back as before: the fast tier's vector of an upgrade, none otherwise.
        const { vectors } = this.opts.indexes;
        for (const [id, before] of added) if (!before || !vectors.add(id, before)) vectors.remove(id);
        throw error;
      })
      .then(() => {
        for (const [seq] of done) this.failures.delete(seq);
      })
      .finally(() => {
        for (const [seq] of done) this.storing.delete(seq);
        this.release(items);
      });
  }

  /** Erased entries: a vector on its way for one of them is dropped (erase/erase.ts). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.erased.add(id);
    // Their queue records go with the erasure: counted by the table until it commits, not staged.
    for (const [seq, id] of this.staged) if (this.erased.has(id)) this.staged.delete(seq);
  }

  close(): void {
    this.closed = true;
    this.retryTimer?.handle.cancel();
    this.detach();
  }

  /**
   * The ids whose vectors went into the index, with the vector each replaced (the index overwrites
   * an id's row in place, or moves it out of the graph into the tail): under `tiered` the fast
   * tier's; otherwise one the vault no longer holds, since `store` drops an entry that has a
   * vector (the table's of an entry whose switch to `local` dropped it, should the index have been
   * saved before the switch committed).
   */
  private index(done: Array<[number, string, Float32Array]>): Array<[string, Float32Array | undefined]> {
    const { vectors } = this.opts.indexes;
    const added: Array<[string, Float32Array | undefined]> = [];
    for (const [, id, vector] of done) {
      const before = vectors.vectorOf(id);
      if (vectors.add(id, vector)) added.push([id, before]);
    }
    if (added.length > 0) this.opts.onIndexed();
    return added;
  }

  private release(items: EmbedItem[] | EmbeddedItem[]): void {
    for (const { seq } of items) this.handedOut.delete(seq);
    if (!this.closed) this.opts.embedding.wake(this.opts.tenantId);
  }
}
