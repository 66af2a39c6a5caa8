/**
 * A reply that completes after the handler returns. The mailbox moves on to the next message at
 * once, while the asker waits for `promise` (for example a write whose commit is batched with the
 * writes of later messages: group commit).
 */
export class Later<T> {
  constructor(readonly promise: Promise<T>) {
    // The asker observes the rejection; this guard only stops an unobserved one crashing the process.
    promise.catch(() => undefined);
  }
}

export function later<T>(promise: Promise<T>): Later<T> {
  return new Later(promise);
}
