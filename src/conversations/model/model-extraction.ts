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
import type { Clock } from "../../runtime/clock.ts";
import { FairTurns } from "../../runtime/fair-turns.ts";
import { type BackoffView, RetryBackoff } from "../../runtime/retry-backoff.ts";
import { type ChatClient, ModelAnswerBad, ModelUnavailable } from "./chat-client.ts";
import { candidatesOf, type ModelCandidate, type ModelTurn, promptFor } from "./prompt.ts";

export const EXTRACT_BACKOFF_MS = 1_000;
export const EXTRACT_MAX_BACKOFF_MS = 5 * 60_000;

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

/** `failures`: calls failed in a row; `retry_at`: when the next may start (RetryBackoff). */
export interface ExtractorState extends ExtractCounts, BackoffView {
  kind: "http";
  model: string;
  /** `retrying`: the last call failed, the next waits until `retry_at`. */
  state: "idle" | "extracting" | "retrying";
}

export class ModelExtraction {
  /** Tenants whose queue may have jobs, the least recently served first (as the background embedder's). */
  private readonly turns = new FairTurns<ExtractQueue>();
  private readonly counts = new Map<string, ExtractCounts>();
  private busy = false;
  private readonly backoff: RetryBackoff;
  private stopped = false;

  constructor(
    private readonly client: ChatClient,
    clock: Clock,
    private readonly log?: (line: string) => void,
  ) {
    const limits = { backoffMs: EXTRACT_BACKOFF_MS, maxBackoffMs: EXTRACT_MAX_BACKOFF_MS };
    this.backoff = new RetryBackoff(clock, limits, () => this.pump());
  }

  get model(): string {
    return this.client.model;
  }

  attach(tenantId: string, queue: ExtractQueue): () => void {
    const detach = this.turns.attach(tenantId, queue);
    this.wake(tenantId);
    return detach;
  }

  wake(tenantId: string): void {
    this.turns.wake(tenantId);
    this.pump();
  }

  /** The tenant's view for its health: its queue, its counts and the model's state. */
  stateOf(tenantId: string): ExtractorState & { pending: number } {
    return {
      kind: "http",
      model: this.client.model,
      state: this.backoff.retrying() ? "retrying" : this.busy ? "extracting" : "idle",
      pending: this.turns.queueOf(tenantId)?.pending() ?? 0,
      ...this.countsOf(tenantId),
      ...this.backoff.view(),
    };
  }

  /** Jobs of the attached tenants waiting: read at a metrics scrape. */
  backlog(): number {
    let waiting = 0;
    for (const queue of this.turns.queues()) waiting += queue.pending();
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
    this.backoff.stop();
  }

  private countsOf(tenantId: string): ExtractCounts {
    const counts = this.counts.get(tenantId) ?? { extracted: 0, dropped: 0, failed: 0 };
    this.counts.set(tenantId, counts);
    return counts;
  }

  private pump(): void {
    while (!this.stopped && !this.backoff.waiting && !this.busy && this.turns.waiting > 0) {
      const tenantId = this.turns.next()!;
      const queue = this.turns.queueOf(tenantId);
      const job = queue?.take();
      if (!queue || !job) {
        this.turns.idle(tenantId);
        continue;
      }
      this.turns.servedNow(tenantId);
      void this.run(tenantId, queue, job);
    }
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
        this.backoff.note(error);
        await queue.abandon(job).catch(() => undefined);
      } else {
        queue.failed(job);
        const advised = error instanceof ModelUnavailable ? error.retryAfterMs : undefined;
        const { delay, message } = this.backoff.failed(error, advised);
        const failures = this.backoff.failures;
        this.log?.(`[extractor] a call failed (${failures} in a row), retrying in ${delay} ms: ${message}`);
      }
    } finally {
      this.busy = false;
    }
    this.turns.wake(tenantId);
    this.pump();
  }

  private async extract(queue: ExtractQueue, job: ExtractJob, counts: ExtractCounts): Promise<void> {
    const answer = await this.client.complete(promptFor(job.turns));
    const { candidates, malformed } = candidatesOf(answer, job.turns.length);
    this.backoff.succeeded();
    const { stored, dropped } = await queue.extracted(job, candidates);
    counts.extracted += stored;
    counts.dropped += dropped + malformed;
  }
}
