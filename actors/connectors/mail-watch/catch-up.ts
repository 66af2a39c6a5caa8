/**
 * Notifications whose expansion failed for a passing reason (the mail API answered 429 or 5xx, or
 * did not answer) wait as dead letters. Nothing else would bring them back unless another
 * notification arrives, so the connector replays them itself: after exactly the `Retry-After` the
 * API named, else after its backoff, on the injected clock. One timer serves every waiting
 * notification; they are handed out oldest first. Expansion always starts from the stored
 * high-water mark, so the first replay that succeeds brings the whole gap and the others then find
 * nothing new: nothing is written twice.
 */
import type { Backoff } from "../../../src/connectors/backoff.ts";
import { errorMessage } from "../../../src/connectors/transport.ts";
import type { Clock, TimerHandle } from "../../../src/runtime/clock.ts";

/** Replays a tenant's dead letter of a mail notification through the ingest pipeline. */
export type ReplayDeadLetter = (eventId: string) => Promise<{ status: "replayed" | "dead" }>;

/** Notifications kept waiting at most; older ones stay dead letters that an operator can replay. */
export const MAX_WAITING = 100;

export class CatchUpQueue {
  private readonly waiting: string[] = [];
  private timer: TimerHandle | undefined;
  private dueAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly backoff: Backoff,
    /** Called when the wait is over; the caller then `take`s the waiting ids. */
    private readonly onDue: () => void,
  ) {}

  /** Queues a notification; the wait is the server's when it named one, else the backoff's. */
  add(eventId: string, serverDelayMs?: number): void {
    this.enqueue([eventId]);
    const backoffMs = this.backoff.next();
    this.arm(serverDelayMs ?? backoffMs);
  }

  /** Puts back ids that were taken but not replayed, keeping any wait already set. */
  putBack(eventIds: readonly string[]): void {
    if (eventIds.length === 0) return;
    this.enqueue(eventIds);
    if (this.timer === undefined) this.arm(this.backoff.next());
  }

  /** Every waiting id, oldest first; the queue is then empty. */
  take(): string[] {
    return this.waiting.splice(0);
  }

  /** A replay went through: the next failure starts the backoff over. */
  succeeded(): void {
    this.backoff.reset();
  }

  get size(): number {
    return this.waiting.length;
  }

  /** When the waiting notifications are replayed next (epoch ms), if any wait. */
  get nextAt(): number | undefined {
    return this.dueAt;
  }

  cancel(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.dueAt = undefined;
  }

  private enqueue(eventIds: readonly string[]): void {
    for (const id of eventIds) if (!this.waiting.includes(id)) this.waiting.push(id);
    if (this.waiting.length > MAX_WAITING) this.waiting.splice(0, this.waiting.length - MAX_WAITING);
  }

  /** The latest wait wins: the server's newest advice is the one that holds. */
  private arm(delayMs: number): void {
    this.timer?.cancel();
    this.dueAt = this.clock.now() + delayMs;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.dueAt = undefined;
      this.onDue();
    }, delayMs);
  }
}

/**
 * Replays the waiting notifications oldest first, outside the mailbox. A replay that fails again
 * puts itself back (its expansion queued it, or it is put back here) and the rest wait with it.
 * False when it stopped early (the runtime stopping, or nothing to replay with).
 */
export async function replayWaiting(
  queue: CatchUpQueue,
  replay: ReplayDeadLetter | undefined,
  { stopping, log }: { stopping: () => boolean; log: (line: string) => void },
): Promise<boolean> {
  const ids = queue.take();
  for (let i = 0; i < ids.length; i++) {
    if (stopping() || !replay) return false;
    let status: "replayed" | "dead";
    try {
      ({ status } = await replay(ids[i]!));
    } catch (error) {
      // The dead letter may not be committed yet, or the tenant is stopping: try again later.
      log(`catch-up replay failed: ${errorMessage(error)}`);
      status = "dead";
      queue.putBack([ids[i]!]);
    }
    if (status === "dead") {
      queue.putBack(ids.slice(i + 1));
      break;
    }
    queue.succeeded();
  }
  return true;
}
