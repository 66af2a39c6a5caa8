/**
 * Removing applied webhook deliveries from `MR_INTAKE` (docs/cluster.md, "Durable webhook intake").
 * An ack alone unindexes a message but leaves its bytes (the delivery's body: entry text an erasure
 * may later remove) in the stream's block file while any other message of the block is queued, so
 * each applied delivery is deleted with `erase` (secure-delete.ts) instead: overwritten on disk,
 * then acknowledged. nats-server writes and syncs (fsync) each overwrite under the stream's lock,
 * which publishes to the stream wait for: the overwrites run after the delivery's answer and off
 * its slot (the owner takes its next delivery meanwhile), a bounded number at once per node.
 */
import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { secureDelete } from "./secure-delete.ts";

/**
 * Overwrites in flight at once on this node. Measured with one tenant's deliveries saturating the
 * intake on loopback: 1-4 in flight fell behind (400-700 removed/s) and held the intake back to
 * that; 16-64 kept pace with it alike.
 */
const LANES = 16;
/**
 * Applied deliveries waiting for their overwrite, at most, before the consumers wait for room: they
 * hold their bodies meanwhile (at most 64 x 960 KiB).
 */
const MAX_WAITING = 64;
/** Wait before a delivery whose overwrite failed is offered again (then removed again). */
const RETRY_DELAY_MS = 1000;

export class IntakeRemovals {
  private readonly waiting: Removal[] = [];
  /** Every removal asked for and not finished (waiting for room, queued or in flight). */
  private readonly unfinished = new Set<Promise<void>>();
  private active = 0;
  /** Resolved when a removal finishes, for consumers waiting for room. */
  private room: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly log: (line: string) => void,
  ) {}

  /**
   * Queues the removal of an applied delivery (call only once it is applied); resolves once queued,
   * after waiting for room while `MAX_WAITING` are queued. If the overwrite fails, the delivery is
   * offered again: the vault's dedupe by event id makes the rerun a no-op, then it is removed again.
   */
  async remove(msg: JsMsg): Promise<void> {
    const done = Promise.withResolvers<void>();
    this.unfinished.add(done.promise);
    void done.promise.then(() => this.unfinished.delete(done.promise));
    while (this.waiting.length >= MAX_WAITING) {
      this.room ??= Promise.withResolvers<void>();
      await this.room.promise;
    }
    this.waiting.push({ msg, done: done.resolve });
    this.drain();
  }

  /**
   * Resolves once every removal asked for before the call has finished (overwritten, or offered
   * again after a failure): an erasure waits for it, so the body of a delivery applied just before
   * it is overwritten before the erasure is answered.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.unfinished]);
  }

  private drain(): void {
    while (this.active < LANES && this.waiting.length > 0) {
      const { msg, done } = this.waiting.shift()!;
      this.active++;
      void this.overwrite(msg).finally(() => {
        done();
        this.active--;
        this.room?.resolve();
        this.room = undefined;
        this.drain();
      });
    }
  }

  /** The delete counts as the ack on the server; the ack after it is explicit. */
  private async overwrite(msg: JsMsg): Promise<void> {
    try {
      await secureDelete(this.jsm, this.stream, [msg.seq]);
    } catch (error) {
      this.log(
        `[cluster] intake ${msg.subject}#${msg.seq}: overwriting the applied delivery failed: ${error}`,
      );
      msg.nak(RETRY_DELAY_MS);
      return;
    }
    msg.ack();
  }
}

/** An applied delivery waiting for its overwrite, and what to tell once it is done. */
interface Removal {
  msg: JsMsg;
  done: () => void;
}
