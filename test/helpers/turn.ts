/**
 * Resolves once every microtask queued so far, and every microtask those queue in turn, has run:
 * `setImmediate` callbacks run only after the microtask queue is empty. It is no timer and waits on
 * no clock. Tests use it to assert that work made only of promise steps (an actor start, a mailbox
 * drain) has *not* happened while a gate the test holds is still closed.
 */
export function afterPendingMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
