import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { MemoryIndexes } from "./indexes.ts";

/** Graph insertion starts after a short lull in writes; until then new vectors are searched exactly. */
const INDEX_FLUSH_DELAY_MS = 100;
/** One flush message inserts this many vectors (~20–40 ms), so other messages wait little between chunks. */
const INDEX_FLUSH_CHUNK = 96;

/**
 * When new vectors move into the ANN graph. Debounced: every write pushes the next flush back, so
 * a burst of writes never waits on graph insertion; the flush runs in the first lull, chunk by
 * chunk (one `index.flush` message each), yielding to other messages in between.
 */
export class IndexFlush {
  private timer: TimerHandle | undefined;

  constructor(
    private readonly indexes: MemoryIndexes,
    private readonly clock: Clock,
    /** Sends `index.flush` to the tenant actor itself. */
    private readonly tellSelf: () => void,
  ) {
    // Vectors saved while still pending (or committed after the last save) go in at the first lull.
    if (indexes.vectors.pending > 0) this.schedule();
  }

  schedule(delayMs = INDEX_FLUSH_DELAY_MS): void {
    this.timer?.cancel();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.tellSelf();
    }, delayMs);
  }

  /** One chunk (or every pending vector, `all`); the next chunk is asked for at once if any is left. */
  run(all: boolean): void {
    const left = this.indexes.flush(all ? Number.POSITIVE_INFINITY : INDEX_FLUSH_CHUNK);
    if (left > 0 && !this.timer) this.schedule(0);
  }

  cancel(): void {
    this.timer?.cancel();
  }
}
