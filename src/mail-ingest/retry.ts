/**
 * The mail API's passing failures (busy 429, failing 5xx, unreachable) are retried a few times:
 * after the `Retry-After` the API asked for, else an exponential backoff, waited on the injected
 * clock. A wait longer than `maxWaitMs`, or any other failure, ends the run with the error.
 */
import { backoffDelay } from "../connectors/backoff.ts";
import type { Clock } from "../runtime/clock.ts";
import { MailApiError } from "../sources/mail/api.ts";

export interface RetryOptions {
  clock: Clock;
  /** Tries in all, the first included. */
  attempts?: number;
  maxWaitMs?: number;
  random?: () => number;
}

function isPassing(error: unknown): error is MailApiError {
  if (!(error instanceof MailApiError)) return false;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

function wait(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const { clock, attempts = 4, maxWaitMs = 60_000, random } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isPassing(error) || attempt >= attempts) throw error;
      const delay = error.retryAfterMs ?? backoffDelay(attempt - 1, { baseMs: 1000, maxMs: 30_000, random });
      if (delay > maxWaitMs) throw error;
      await wait(clock, delay);
    }
  }
}
