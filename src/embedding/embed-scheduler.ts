/**
 * The background embedder: one per runtime, shared by every tenant. Tenant actors attach their
 * backlog (a queue of entries waiting for their vector, kept in their vault) and wake the
 * scheduler when it grows; the scheduler takes batches from the tenants in turn (one batch per
 * turn, the least recently served tenant first, so a tenant with a large backlog cannot hold back
 * the others), embeds at most
 * `concurrency` batches at once, and hands the vectors back to the tenant, which stores them.
 *
 * A failing embedder fails no write: the batch goes back to its tenant, and the scheduler waits
 * before the next batch (exponential backoff on the injected clock), its state visible in health.
 */
import type { Clock, TimerHandle } from "../runtime/clock.ts";
import { FairTurns } from "../runtime/fair-turns.ts";
import { RetryBackoff } from "../runtime/retry-backoff.ts";
import type { Embedder, EmbedderKind } from "./embedder.ts";
import type { UpgradePacing } from "./upgrade-pacing.ts";

/** One entry to embed: its place in its tenant's queue, its id and its text. */
export interface EmbedItem {
  seq: number;
  id: string;
  text: string;
}

/** A tenant's backlog as the scheduler sees it (actors/tenant/memory/embed-backlog.ts). */
export interface EmbedQueue {
  /** Up to `max` items not handed out already; none when the backlog is empty or all in flight. */
  take(max: number): EmbedItem[];
  /** The vectors of items `take` handed out, in their order: the tenant stores them. */
  embedded(items: EmbedItem[], vectors: Float32Array[]): void;
  /** The embedder failed on items `take` handed out: they may be handed out again. */
  failed(items: EmbedItem[]): void;
  /** Entries waiting for their vector (the metrics' backlog). */
  pending?(): number;
  /** Entries whose fast tier's vector waits for the model's (`tiered`; the metrics' backlog too). */
  upgrades?(): number;
}

/** What a tenant actor is given: where to attach its backlog, and what the runtime embeds with. */
export interface BackgroundEmbedding {
  /** The embedder's kind and dimensions (and model): the stamp a vault's vectors carry. */
  readonly signature: string;
  /** Whether the embedder makes vectors itself: every kind but `client`. */
  readonly canEmbed: boolean;
  /**
   * Whether a write's own vector (the fast tier's, `tiered`) is queued for the background embedder
   * too, which replaces it with the model's once: the queue record marks a vector not upgraded yet.
   */
  readonly upgrades?: boolean;
  /**
   * The fast tier's vector of a text, at once (`tiered`: the static table's): the vault's opening
   * gives one to each entry that has none (imported, or a switch from `local`), in its commit.
   */
  readonly fastVector?: (text: string) => Float32Array;
  /** Attaches a tenant's backlog; the function returned detaches it (the actor stops). */
  attach(tenantId: string, queue: EmbedQueue): () => void;
  /** The tenant's backlog may have items to take (a write queued some, a batch was stored). */
  wake(tenantId: string): void;
  state(): EmbedderState;
}

/** The embedder as health reports it. */
export interface EmbedderState {
  kind: EmbedderKind;
  /** `retrying`: the last batch failed, the next waits until `retry_at`. */
  state: "idle" | "embedding" | "retrying";
  /** Batches being embedded now. */
  in_flight: number;
  /** Vectors made since the process started. */
  embedded: number;
  /** Batches failed in a row (0 once one succeeds). */
  failures: number;
  last_error?: string;
  last_error_at?: string;
  retry_at?: string;
  /** `tiered`: `yielding` while the model's next batch waits for the requests to quiet down. */
  upgrades?: "running" | "yielding";
}

export interface SchedulerLimits {
  /** Texts per embedder call. */
  batchSize: number;
  /** Embedder calls in flight at once. */
  concurrency: number;
  /** The first retry's delay, doubled at each failure in a row up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface EmbedSchedulerOptions {
  embedder: Embedder;
  signature: string;
  clock: Clock;
  limits: SchedulerLimits;
  log?: (line: string) => void;
  /** BackgroundEmbedding.fastVector (`tiered`). */
  fastVector?: (text: string) => Float32Array;
  /** When a batch may start (`tiered`: the model's upgrade yields to requests); always, without it. */
  pacing?: UpgradePacing;
}

export class EmbedScheduler implements BackgroundEmbedding {
  readonly signature: string;
  readonly canEmbed: boolean;
  readonly upgrades: boolean;
  readonly fastVector?: (text: string) => Float32Array;
  /** Tenants whose backlog may have items, the least recently given a batch first. */
  private readonly turns = new FairTurns<EmbedQueue>();
  private inFlightCount = 0;
  private embeddedCount = 0;
  /** After a failed batch, no batch starts before the wait is over (1 s, 2 s, 4 s … up to the ceiling). */
  private readonly backoff: RetryBackoff;
  private stopped = false;
  /** The pacing's wait: the next batch is asked for again when it fires. */
  private paced: TimerHandle | undefined;

  constructor(private readonly opts: EmbedSchedulerOptions) {
    this.signature = opts.signature;
    this.canEmbed = opts.embedder.kind !== "client";
    this.upgrades = opts.embedder.kind === "tiered";
    this.fastVector = opts.fastVector;
    this.backoff = new RetryBackoff(opts.clock, opts.limits, () => this.pump());
  }

  attach(tenantId: string, queue: EmbedQueue): () => void {
    const detach = this.turns.attach(tenantId, queue);
    this.wake(tenantId);
    return detach;
  }

  wake(tenantId: string): void {
    this.markReady(tenantId);
    this.pump();
  }

  state(): EmbedderState {
    return {
      kind: this.opts.embedder.kind,
      state: this.backoff.retrying() ? "retrying" : this.inFlightCount > 0 ? "embedding" : "idle",
      in_flight: this.inFlightCount,
      embedded: this.embeddedCount,
      ...this.backoff.view(),
      ...(this.opts.pacing && { upgrades: this.paced ? "yielding" : "running" }),
    };
  }

  /** Entries of the attached (open) tenants waiting for their vector: read at a metrics scrape. */
  backlog(): number {
    let waiting = 0;
    for (const queue of this.turns.queues()) waiting += (queue.pending?.() ?? 0) + (queue.upgrades?.() ?? 0);
    return waiting;
  }

  /** Batches being embedded now. */
  inFlight(): number {
    return this.inFlightCount;
  }

  /** No batch starts after this; those in flight finish, and their tenants drop what they bring. */
  stop(): void {
    this.stopped = true;
    this.backoff.stop();
    this.paced?.cancel();
  }

  /** Starts batches while a slot is free, taking from the ready tenants in turn. */
  private pump(): void {
    const { batchSize, concurrency } = this.opts.limits;
    while (
      !this.stopped &&
      !this.backoff.waiting &&
      this.inFlightCount < concurrency &&
      this.turns.waiting > 0 &&
      this.mayStart()
    ) {
      const tenantId = this.turns.next()!;
      const queue = this.turns.queueOf(tenantId);
      const items = queue?.take(batchSize) ?? [];
      if (!queue || items.length === 0) {
        // Empty, or all its items in flight: the tenant wakes the scheduler again when that changes.
        this.turns.idle(tenantId);
        continue;
      }
      this.turns.servedNow(tenantId);
      this.opts.pacing?.started();
      void this.run(tenantId, queue, items);
    }
  }

  /** Whether the pacing lets a batch start now; if not, the pump runs again when it may. */
  private mayStart(): boolean {
    if (this.paced) return false;
    const wait = this.opts.pacing?.wait() ?? 0;
    if (wait === 0) return true;
    this.paced = this.opts.clock.setTimeout(() => {
      this.paced = undefined;
      this.pump();
    }, wait);
    return false;
  }

  private markReady(tenantId: string): void {
    if (this.canEmbed) this.turns.wake(tenantId);
  }

  private async run(tenantId: string, queue: EmbedQueue, items: EmbedItem[]): Promise<void> {
    this.inFlightCount++;
    // An embedder may compute on this thread (hashing a whole vault after a switch): each batch
    // starts on a turn of its own, so requests waiting for the event loop are served between
    // batches, not after the whole backlog.
    await nextTurn();
    if (this.stopped) {
      // Stopped meanwhile: the items stay queued in their vaults, taken again at the next start.
      this.inFlightCount--;
      return;
    }
    let vectors: Float32Array[] | undefined;
    try {
      // The background lane: a search's query vector is made before the rest of this batch.
      vectors = await this.opts.embedder.embed(
        items.map((item) => item.text),
        "background",
      );
      if (vectors.length !== items.length)
        throw new Error(`the embedder returned ${vectors.length} vectors for ${items.length} texts`);
    } catch (error) {
      vectors = undefined;
      queue.failed(items);
      // Its items are back in its queue: the tenant takes its turn again once the wait is over.
      this.markReady(tenantId);
      this.failed(error);
    }
    this.inFlightCount--;
    if (vectors) {
      this.backoff.succeeded();
      this.embeddedCount += items.length;
      queue.embedded(items, vectors);
    }
    this.pump();
  }

  /** Backs off: no batch starts before the retry time (1 s, 2 s, 4 s … up to the ceiling). */
  private failed(error: unknown): void {
    const { delay, message } = this.backoff.failed(error);
    const failures = this.backoff.failures;
    this.opts.log?.(`[embedder] a batch failed (${failures} in a row), retrying in ${delay} ms: ${message}`);
  }
}

/** Resolves on the event loop's next turn, after the I/O already waiting (not a timer: no time passes). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
