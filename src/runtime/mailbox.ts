/**
 * A serial mailbox: each job starts only after the previous one settled.
 * Built as a promise chain (`tail = tail.then(run, run)`) rather than a drain loop, because a drain
 * loop stalls when a handler completes synchronously.
 */
export class Mailbox {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;

  /** Runs `job` after every job enqueued before it; the returned promise settles with the job. */
  enqueue<R>(job: () => R | Promise<R>): Promise<R> {
    this.queued++;
    const run = async () => {
      try {
        return await job();
      } finally {
        this.queued--;
      }
    };
    const result = this.tail.then(run, run);
    // The chain must survive a rejected job; the caller still sees the rejection through `result`.
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Jobs enqueued and not yet settled. */
  get depth(): number {
    return this.queued;
  }

  /** Settles once every job enqueued so far has settled. */
  drained(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
