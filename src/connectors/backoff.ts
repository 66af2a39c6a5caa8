/**
 * Reconnect delays: exponential, capped, with jitter so that many tenants' connectors that lost
 * the same peer do not come back in lock-step. The random source is injected so tests are exact.
 */
export interface BackoffOptions {
  /** Delay of the first retry before jitter. */
  baseMs: number;
  /** Upper bound of any delay before jitter. */
  maxMs: number;
  /** A number in [0, 1); Math.random by default. */
  random?: () => number;
}

/**
 * "Equal jitter": half of the exponential step is kept, the other half is random, so a retry is
 * never immediate yet never synchronised. `attempt` counts from 0.
 */
export function backoffDelay(
  attempt: number,
  { baseMs, maxMs, random = Math.random }: BackoffOptions,
): number {
  const step = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  const half = step / 2;
  return Math.round(half + half * clampUnit(random()));
}

function clampUnit(r: number): number {
  return Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0.5;
}

/** A retry counter: `next()` gives the delay of the next attempt, `reset()` after a success. */
export class Backoff {
  private attempt = 0;

  constructor(private readonly options: BackoffOptions) {}

  next(): number {
    return backoffDelay(this.attempt++, this.options);
  }

  reset(): void {
    this.attempt = 0;
  }

  /** Failures since the last success. */
  get attempts(): number {
    return this.attempt;
  }
}
