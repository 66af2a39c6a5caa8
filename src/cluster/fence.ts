/**
 * Fencing on the partition changelog `mr.log.<NN>`: every append names the last sequence its
 * writer knows on the subject (`Nats-Expected-Last-Subject-Sequence`), so once a new owner's claim
 * record lands, a stale owner's next append is refused by JetStream. The claim record's stream
 * sequence is the partition's epoch (the fencing token). This, not KV compare-and-set, is what makes
 * ownership exclusive (nats-server issue 4320). Appends of one partition are serialised.
 */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { Unavailable } from "../errors.ts";
import { LOG_STREAM, logSubject } from "./names.ts";

export interface LogRecord {
  type: string;
  node: string;
  epoch: number;
  [field: string]: unknown;
}

/**
 * A write refused because this node does not (or no longer) own the partition: another claim moved
 * the subject on, or the append could not be made. A 503: the client retries and reaches the owner.
 */
export class Fenced extends Unavailable {
  constructor(readonly partition: number) {
    super(`partition ${partition} moved to another node; retry`, 1);
  }
}

export class PartitionLog {
  /** The last sequence this node appended or read per partition it claimed. */
  private readonly lastSeq = new Map<number, number>();
  private readonly chains = new Map<number, Promise<unknown>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly nodeId: string,
  ) {}

  /** Appends the claim record after the subject's current last message; answers the new epoch. */
  async claim(partition: number): Promise<number> {
    const last = await this.jsm.streams.getMessage(LOG_STREAM, { last_by_subj: logSubject(partition) });
    const expected = last?.seq ?? 0;
    const record: LogRecord = { type: "claim", node: this.nodeId, epoch: 0, previous: expected };
    const ack = await this.js.publish(logSubject(partition), JSON.stringify(record), {
      expect: { lastSubjectSequence: expected },
    });
    this.lastSeq.set(partition, ack.seq);
    return ack.seq;
  }

  /** Appends a record under `epoch`, fenced; `Fenced` when another claim came first. */
  append(partition: number, epoch: number, record: Omit<LogRecord, "node" | "epoch">): Promise<number> {
    const run = async () => {
      const expected = this.lastSeq.get(partition);
      if (expected === undefined) throw new Fenced(partition);
      try {
        const ack = await this.js.publish(
          logSubject(partition),
          JSON.stringify({ ...record, node: this.nodeId, epoch }),
          { expect: { lastSubjectSequence: expected } },
        );
        this.lastSeq.set(partition, ack.seq);
        return ack.seq;
      } catch (error) {
        if (/wrong last sequence/.test(String(error))) {
          this.lastSeq.delete(partition);
          throw new Fenced(partition);
        }
        throw error;
      }
    };
    const next = (this.chains.get(partition) ?? Promise.resolve()).then(run, run);
    this.chains.set(
      partition,
      next.catch(() => undefined),
    );
    return next;
  }

  forget(partition: number): void {
    this.lastSeq.delete(partition);
  }
}
