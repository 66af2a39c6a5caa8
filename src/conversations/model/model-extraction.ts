/**
 * The model extractor's scheduler: one per runtime, shared by every tenant, like the background
 * embedder (src/embedding/embed-scheduler.ts). Tenant actors attach their queue of extraction
 * jobs (one per conversation call with new turns, kept in their vault with the turns) and wake it;
 * it asks the model for one job at a time, the least recently served tenant first, and hands the
 * candidates back to the tenant, which writes those that validate and removes the job's record.
 *
 * A failing model fails no ingest: a job whose call failed (unreachable, a timeout, 429, 5xx) goes
 * back to its queue and nothing is asked before the backoff's wait is over (1 s, 2 s, 4 s … at
 * most 5 minutes, on the injected clock); one whose answer is not JSON is counted failed and let go.
 */
import type { Clock, TimerHandle } from "../../runtime/clock.ts";
import { type ChatClient, ModelAnswerBad } from "./chat-client.ts";
import { candidatesOf, type ModelCandidate, type ModelTurn, promptFor } from "./prompt.ts";

export const EXTRACT_BACKOFF_MS = 1_000;
export const EXTRACT_MAX_BACKOFF_MS = 5 * 60_000;
const ERROR_CHARS = 300;

/** One job: its queue record's key and the turns it extracts from. */
export interface ExtractJob {
  key: string;
  turns: ModelTurn[];
}

/** A tenant's jobs as the scheduler sees them (actors/tenant/conversations/extract-backlog.ts). */
export interface ExtractQueue {
  /** The oldest job not handed out already, if any. */
  take(): ExtractJob | undefined;
  /** The model's candidates: written where they validate, the record removed; the entries written and dropped. */
  extracted(job: ExtractJob, candidates: ModelCandidate[]): Promise<{ stored: number; dropped: number }>;
  /** The model answered nonsense: the record is removed, nothing written. */
  abandon(job: ExtractJob): Promise<void>;
  /** The call failed: the job may be handed out again. */
  failed(job: ExtractJob): void;
  /** Jobs waiting (in flight included). */
  pending(): number;
}

/** What a tenant's health says of its extraction since the process started. */
export interface ExtractCounts {
  /** Entries written from the model's answers. */
  extracted: number;
  /** The model's entries refused: not the shape asked for, or not valid for their category. */
  dropped: number;
  /** Jobs let go because the answer was not JSON (or not the shape asked for at all). */
  failed: number;
}

export interface ExtractorState extends ExtractCounts {
  kind: "http";
  model: string;
  /** `retrying`: the last call failed, the next waits until `retry_at`. */
  state: "idle" | "extracting" | "retrying";
  /** Calls failed in a row (0 once one succeeds). */
  failures: number;
  last_error?: string;
  last_error_at?: string;
  retry_at?: string;
}

export class ModelExtraction {
  private readonly queues = new Map<string, ExtractQueue>();
  private readonly ready = new Set<string>();
  private readonly served = new Map<string, number>();
  private readonly counts = new Map<string, ExtractCounts>();
  private turn = 0;
  private busy = false;
  private failures = 0;
  private lastError: { message: string; at: number } | undefined;
  private retryAt: number | undefined;
  private retryTimer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly client: ChatClient,
    private readonly clock: Clock,
    private readonly log?: (line: string) => void,
  ) {}

  get model(): string {
    return this.client.model;
  }

  attach(tenantId: string, queue: ExtractQueue): () => void {
    this.queues.set(tenantId, queue);
    this.wake(tenantId);
    return () => {
      if (this.queues.get(tenantId) !== queue) return;
      this.queues.delete(tenantId);
      this.ready.delete(tenantId);
    };
  }

  wake(tenantId: string): void {
    if (this.queues.has(tenantId)) this.ready.add(tenantId);
    this.pump();
  }

  /** The tenant's view for its health: its queue, its counts and the model's state. */
  stateOf(tenantId: string): ExtractorState & { pending: number } {
    const retrying = this.retryAt !== undefined && this.retryAt > this.clock.now();
    const out: ExtractorState & { pending: number } = {
      kind: "http",
      model: this.client.model,
      state: retrying ? "retrying" : this.busy ? "extracting" : "idle",
      pending: this.queues.get(tenantId)?.pending() ?? 0,
      ...this.countsOf(tenantId),
      failures: this.failures,
    };
    if (this.lastError) {
      out.last_error = this.lastError.message;
      out.last_error_at = new Date(this.lastError.at).toISOString();
    }
    if (retrying) out.retry_at = new Date(this.retryAt!).toISOString();
    return out;
  }

  /** Jobs of the attached tenants waiting: read at a metrics scrape. */
  backlog(): number {
    let waiting = 0;
    for (const queue of this.queues.values()) waiting += queue.pending();
    return waiting;
  }

  /** Every tenant's counts added up (the metrics' totals). */
  totals(): ExtractCounts {
    const sum: ExtractCounts = { extracted: 0, dropped: 0, failed: 0 };
    for (const c of this.counts.values()) {
      sum.extracted += c.extracted;
      sum.dropped += c.dropped;
      sum.failed += c.failed;
    }
    return sum;
  }

  /** No call starts after this; the one in flight finishes, its tenant dropping what it brings. */
  stop(): void {
    this.stopped = true;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
  }

  private countsOf(tenantId: string): ExtractCounts {
    const counts = this.counts.get(tenantId) ?? { extracted: 0, dropped: 0, failed: 0 };
    this.counts.set(tenantId, counts);
    return counts;
  }

  private pump(): void {
    while (!this.stopped && !this.retryTimer && !this.busy && this.ready.size > 0) {
      const tenantId = this.nextTenant();
      const queue = this.queues.get(tenantId);
      const job = queue?.take();
      if (!queue || !job) {
        this.ready.delete(tenantId);
        continue;
      }
      this.served.set(tenantId, ++this.turn);
      void this.run(tenantId, queue, job);
    }
  }

  private nextTenant(): string {
    let best: string | undefined;
    let bestTurn = Number.POSITIVE_INFINITY;
    for (const tenantId of this.ready) {
      const turn = this.served.get(tenantId) ?? 0;
      if (turn < bestTurn) [best, bestTurn] = [tenantId, turn];
    }
    return best!;
  }

  private async run(tenantId: string, queue: ExtractQueue, job: ExtractJob): Promise<void> {
    this.busy = true;
    const counts = this.countsOf(tenantId);
    try {
      // Its turns were all erased meanwhile: nothing to ask about.
      if (job.turns.length === 0) await queue.abandon(job);
      else await this.extract(queue, job, counts);
    } catch (error) {
      if (error instanceof ModelAnswerBad) {
        counts.failed++;
        this.noteError(error);
        await queue.abandon(job).catch(() => undefined);
      } else {
        queue.failed(job);
        this.backOff(error);
      }
    } finally {
      this.busy = false;
    }
    this.ready.add(tenantId);
    this.pump();
  }

  private async extract(queue: ExtractQueue, job: ExtractJob, counts: ExtractCounts): Promise<void> {
    const answer = await this.client.complete(promptFor(job.turns));
    const { candidates, malformed } = candidatesOf(answer, job.turns.length);
    this.failures = 0;
    this.retryAt = undefined;
    const { stored, dropped } = await queue.extracted(job, candidates);
    counts.extracted += stored;
    counts.dropped += dropped + malformed;
  }

  private noteError(error: unknown): string {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_CHARS);
    this.lastError = { message, at: this.clock.now() };
    return message;
  }

  private backOff(error: unknown): void {
    this.failures++;
    const message = this.noteError(error);
    const delay = Math.min(EXTRACT_MAX_BACKOFF_MS, EXTRACT_BACKOFF_MS * 2 ** (this.failures - 1));
    this.retryAt = this.clock.now() + delay;
    this.log?.(`[extractor] a call failed (${this.failures} in a row), retrying in ${delay} ms: ${message}`);
    if (this.stopped) return;
    this.retryTimer?.cancel();
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.pump();
    }, delay);
  }
}
