/**
 * Polls `probe` until `done` accepts its result, for effects that land asynchronously (a `tell` to
 * an actor). Fails with the last value seen rather than sleeping blindly.
 */
export async function pollUntil<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 2000, intervalMs = 5 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    }
    await Bun.sleep(intervalMs);
  }
}
