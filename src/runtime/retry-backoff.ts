/**
 * The backoff of a worker the runtime shares (the background embedder, the model extractor): after
 * a failure nothing starts before the wait is over (`base`, doubled at each failure in a row, at
 * most `max`, on the injected clock), and what failed last is kept for health.
 */
import type { Clock, TimerHandle } from "./clock.ts";

/** An error message short enough for health and a log line. */
const ERROR_CHARS = 300;

export interface BackoffView {
  /** Failures in a row (0 once one succeeds). */
  failures: number;
  last_error?: string;
  last_error_at?: string;
  retry_at?: string;
}

export class RetryBackoff {
  private failuresInRow = 0;
  private lastError: { message: string; at: number } | undefined;
  private retryAt: number | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly limits: { backoffMs: number; maxBackoffMs: number },
    /** Called once the wait is over: the worker starts again. */
    private readonly resume: () => void,
  ) {}

  /** Whether a wait is on: nothing starts before it is over. */
  get waiting(): boolean {
    return this.timer !== undefined;
  }

  get failures(): number {
    return this.failuresInRow;
  }

  /** Whether the last call failed and the next waits (`retry_at` still ahead). */
  retrying(): boolean {
    return this.retryAt !== undefined && this.retryAt > this.clock.now();
  }

  succeeded(): void {
    this.failuresInRow = 0;
    this.retryAt = undefined;
  }

  /** Keeps `error` as the last one (for health) without a wait; its message, cut short. */
  note(error: unknown): string {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, ERROR_CHARS);
    this.lastError = { message, at: this.clock.now() };
    return message;
  }

  /**
   * A failure in a row: the wait starts (`advisedMs`, a server's `Retry-After`, in place of the
   * backoff's when given); its length and the error's message.
   */
  failed(error: unknown, advisedMs?: number): { delay: number; message: string } {
    this.failuresInRow++;
    const message = this.note(error);
    const { backoffMs, maxBackoffMs } = this.limits;
    const delay = advisedMs ?? Math.min(maxBackoffMs, backoffMs * 2 ** (this.failuresInRow - 1));
    this.retryAt = this.clock.now() + delay;
    if (!this.stopped) {
      this.timer?.cancel();
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.resume();
      }, delay);
    }
    return { delay, message };
  }

  view(): BackoffView {
    const out: BackoffView = { failures: this.failuresInRow };
    if (this.lastError) {
      out.last_error = this.lastError.message;
      out.last_error_at = new Date(this.lastError.at).toISOString();
    }
    if (this.retrying()) out.retry_at = new Date(this.retryAt!).toISOString();
    return out;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }
}
