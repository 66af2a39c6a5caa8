import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";
import type { GraphRoundOutput } from "../../../src/search/vector/graph-build.ts";
import type { GraphBuilder } from "../../../src/search/vector/graph-builder.ts";
import type { GraphRound } from "../../../src/search/vector/vector-index.ts";
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
 * Rounds on the build thread (graph-builder.ts) start once this many vectors wait, lull or not:
 * under `tiered` the model's upgrades come as a steady trickle (~50 a second) that never leaves
 * a lull, and every search scans and rescores the tail (a lull-only rule let it grow to
 * TAIL_BOUND: 10k search p50 2.9 ms against 1.9 ms with this bound, single runs). A lull still
 * starts a round for whatever waits.
 */
export const ROUND_TAIL = 256;
/**
 * Each round reads the graph file and writes it again, whatever it inserts, so while the tail is
 * short the next round waits ROUND_SPACING times as long as the last one's rewrite took (the
 * thread spends at most about a fifth of its time rewriting a large graph for a few vectors; the
 * insertion itself is the work wanted), and at least MIN_ROUND_GAP_MS: every adoption maps the
 * graph anew, its pages faulted in again by the searches after it (rounds back to back cost a 10k
 * tenant's searches ~3 ms at p50, measured). Past TAIL_BOUND the next round starts at once. A
 * round takes at most MAX_ROUND rows, so a bulk load is adopted in steps.
 */
const ROUND_SPACING = 4;
const MIN_ROUND_GAP_MS = 1000;
const MAX_ROUND = 65_536;
/** After a failed round (the thread died, a full disk), the next waits this long. */
const ROUND_RETRY_MS = 1000;

type TimerKind = "lull" | "due" | "spacing";
type Finished = { round: GraphRound; result: GraphRoundOutput | Error };

/**
 * When tail vectors move into the ANN graph. Debounced while the tail is short: every write
 * pushes the next flush back, so a burst of writes never waits on graph insertion; the flush runs
 * in the first lull. Past TAIL_BOUND a write no longer pushes it back. With the runtime's graph
 * builder (graph-builder.ts) a flush adopts the round the builder answered and begins the next,
 * the insertion itself running on the builder's thread (past ROUND_TAIL instead of TAIL_BOUND,
 * and ROUND_SPACING says when a short tail's next round is due). Without one (a memory made alone, the bench's "flush everything") the actor
 * inserts in place, chunk by chunk (one `index.flush` message each, sized from the last one's
 * rate to take about CHUNK_BUDGET_MS), yielding to other messages in between.
 */
export class IndexFlush {
  private timer: TimerHandle | undefined;
  /** "lull": pushed back by each write; "due": at once; "spacing": when the next round may start. */
  private timerKind: TimerKind = "lull";
  private chunk = 64;
  /** A round answered by the builder, adopted by the next run (on the actor's turn). */
  private finished: Finished | undefined;
  /** When a short tail's next round may start (clock ms). */
  private nextRoundAt = 0;
  private cancelled = false;

  constructor(
    private readonly indexes: MemoryIndexes,
    private readonly clock: Clock,
    /** Sends `index.flush` to the tenant actor itself. */
    private readonly tellSelf: () => void,
    /** Where graph rounds are built (none: in place, chunk by chunk, on the actor's thread). */
    private readonly builder?: GraphBuilder,
  ) {
    // Vectors saved in the tail (or committed after the last save) go in at the first lull.
    if (indexes.vectors.pending > 0) this.schedule();
    // The entity index is built after the open, a chunk per flush (entity-store.ts).
    if (!indexes.entities.ready) this.wakeIn(0, "due");
  }

  /** Vectors were written: the next flush is due at the first lull, or at once past the bound. */
  schedule(): void {
    // A round in flight tells the actor when it is answered; the writes meanwhile wait for it.
    if (this.builder && this.indexes.vectors.building) return;
    const bound = this.builder ? ROUND_TAIL : TAIL_BOUND;
    const eager = this.indexes.vectors.pending > bound;
    // A flush already due (at once, or when the spacing has passed) is not pushed back by writes.
    if (this.timer && this.timerKind !== "lull") return;
    this.wakeIn(eager ? 0 : INDEX_FLUSH_DELAY_MS, eager ? "due" : "lull");
  }

  private wakeIn(delayMs: number, kind: TimerKind): void {
    this.timer?.cancel();
    this.timerKind = kind;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.tellSelf();
    }, delayMs);
  }

  /**
   * One chunk (or every tail vector, `all`), and one of the entity index's build; the next chunk
   * is asked for at once if any is left.
   */
  run(all: boolean): void {
    if (this.builder && !all) {
      this.runRounds(this.builder);
      return;
    }
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
    if ((left > 0 || entitiesLeft) && !this.timer) this.wakeIn(0, "due");
  }

  cancel(): void {
    this.cancelled = true;
    this.timer?.cancel();
  }

  /**
   * The build on the builder's thread: the round it answered is adopted, then the next one begun
   * when due (its answer tells the actor again). The entity index's chunk runs as in place.
   */
  private runRounds(builder: GraphBuilder): void {
    const { vectors } = this.indexes;
    const finished = this.finished;
    this.finished = undefined;
    if (finished) {
      vectors.finishRound(finished.round, finished.result);
      const wait =
        finished.result instanceof Error
          ? ROUND_RETRY_MS
          : Math.max(MIN_ROUND_GAP_MS, ROUND_SPACING * finished.result.rewriteMs);
      this.nextRoundAt = this.clock.now() + wait;
    }
    // After an adoption, a few vectors left wait for a lull or for ROUND_TAIL more, as a first
    // round does, and none sets no timer (the next write does); more begin the next round (when
    // the spacing has passed).
    const few = finished !== undefined && vectors.pending <= ROUND_TAIL;
    if (few && vectors.pending > 0) this.schedule();
    else if (!few && !vectors.building) this.beginRound(builder);
    const entitiesLeft = !this.indexes.entities.step();
    this.indexes.idle();
    if (entitiesLeft && !this.timer) this.wakeIn(0, "due");
  }

  private beginRound(builder: GraphBuilder): void {
    const { vectors } = this.indexes;
    if (vectors.pending === 0) return;
    const wait = this.nextRoundAt - this.clock.now();
    if (vectors.pending <= TAIL_BOUND && wait > 0) {
      if (this.timerKind !== "spacing" || !this.timer) this.wakeIn(wait, "spacing");
      return;
    }
    const round = vectors.beginRound(MAX_ROUND);
    if (!round) return;
    const done = (result: GraphRoundOutput | Error) => {
      const finished = { round, result };
      // A closed tenant is not woken for it: the closed index only removes the round's file.
      if (this.cancelled) {
        vectors.finishRound(round, result);
        return;
      }
      this.finished = finished;
      this.tellSelf();
    };
    builder
      .build(round.input)
      .then(done, (error) => done(error instanceof Error ? error : new Error(String(error))));
  }
}
