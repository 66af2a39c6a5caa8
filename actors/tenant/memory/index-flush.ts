import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { MemoryIndexes } from "./indexes.ts";

/** Graph insertion starts after a short lull in writes; until then new vectors are searched exactly. */
const INDEX_FLUSH_DELAY_MS = 100;
/**
 * Past this many tail vectors the build no longer waits for a lull: each search scans the tail
 * exactly (~0.4–0.8 µs a vector on this machine), and 2,048 is about what fits in the 1–3 ms a
 * search may take. Writes still go first (a chunk runs between messages), so a sustained bulk load
 * can outrun the build; the tail is then longer, and searches pay for it, until it catches up.
 */
export const TAIL_BOUND = 2048;
/** One flush message inserts for about this long (multi-threaded), so other messages wait little. */
const CHUNK_BUDGET_MS = 15;
const MIN_CHUNK = 16;
const MAX_CHUNK = 4096;

/**
 * When tail vectors move into the ANN graph. Debounced while the tail is short: every write
 * pushes the next flush back, so a burst of writes never waits on graph insertion; the flush runs
 * in the first lull, chunk by chunk (one `index.flush` message each), yielding to other messages
 * in between. Past TAIL_BOUND a write no longer pushes it back: chunks run between the writes.
 * Each chunk is sized from the last one's rate to take about CHUNK_BUDGET_MS.
 */
export class IndexFlush {
  private timer: TimerHandle | undefined;
  private chunk = 64;
  private dueAtOnce = false;

  constructor(
    private readonly indexes: MemoryIndexes,
    private readonly clock: Clock,
    /** Sends `index.flush` to the tenant actor itself. */
    private readonly tellSelf: () => void,
  ) {
    // Vectors saved in the tail (or committed after the last save) go in at the first lull.
    if (indexes.vectors.pending > 0) this.schedule();
    // The entity index is built after the open, a chunk per flush (entity-store.ts).
    if (!indexes.entities.ready) this.schedule(0);
  }

  schedule(delayMs = INDEX_FLUSH_DELAY_MS): void {
    const eager = this.indexes.vectors.pending > TAIL_BOUND;
    // A chunk already due at once stays due: writes past the bound do not push it back.
    if (this.timer && this.dueAtOnce) return;
    this.timer?.cancel();
    const delay = eager ? 0 : delayMs;
    this.dueAtOnce = delay === 0;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.tellSelf();
    }, delay);
  }

  /**
   * One chunk (or every tail vector, `all`), and one of the entity index's build; the next chunk
   * is asked for at once if any is left.
   */
  run(all: boolean): void {
    const started = performance.now();
    const size = all ? Number.POSITIVE_INFINITY : this.chunk;
    const before = this.indexes.vectors.pending;
    const left = this.indexes.flush(size);
    const moved = before - left;
    const ms = performance.now() - started;
    if (!all && moved > 0 && ms > 0) {
      const fit = Math.round((moved * CHUNK_BUDGET_MS) / ms);
      this.chunk = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, fit));
    }
    const entitiesLeft = !this.indexes.entities.step(all ? Number.POSITIVE_INFINITY : undefined);
    if ((left > 0 || entitiesLeft) && !this.timer) this.schedule(0);
  }

  cancel(): void {
    this.timer?.cancel();
  }
}
