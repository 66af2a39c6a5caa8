/**
 * Fencing on the partition changelog `mr.log.<NN>`: every append names the last sequence its
 * writer knows on the subject (`Nats-Expected-Last-Subject-Sequence`), so once a new owner's claim
 * record lands, a stale owner's next append is refused by JetStream. The claim record's stream
 * sequence is the partition's epoch (the fencing token). This, not KV compare-and-set, is what makes
 * ownership exclusive (nats-server issue 4320). Appends of one partition are serialised; what
 * queues meanwhile goes as one batch record.
 */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { Unavailable } from "../errors/domain-errors.ts";
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
  /** The epoch of this node's current claim per partition: a record of an older one is never published. */
  private readonly epochs = new Map<number, number>();
  /** Records waiting for their partition's append in flight, and the partitions appending now. */
  private readonly queues = new Map<number, QueuedRecord[]>();
  private readonly draining = new Set<number>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly nodeId: string,
    /** The largest record one message carries (the server's max_payload less room for headers). */
    private readonly maxRecordBytes: () => number = () => 960 * 1024,
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
    this.epochs.set(partition, ack.seq);
    return ack.seq;
  }

  /**
   * Appends a record under `epoch`, fenced; `Fenced` when another claim came first. Records of a
   * partition queued while its previous append is in flight go together as one `batch` record
   * (group append: one JetStream round trip for all of them, so a partition's write rate is not
   * one round trip per write); each caller's promise resolves with that message's sequence. A
   * record over one message (a large batch's write set) goes alone as consecutive `part` records,
   * each fenced on the one before: replay applies it only once its last part is there
   * (partsOf / Reassembly).
   */
  append(partition: number, epoch: number, record: Omit<LogRecord, "node" | "epoch">): Promise<number> {
    const message = JSON.stringify({ ...record, node: this.nodeId, epoch });
    const queued = Promise.withResolvers<number>();
    let queue = this.queues.get(partition);
    if (!queue) {
      queue = [];
      this.queues.set(partition, queue);
    }
    queue.push({ epoch, message, bytes: Buffer.byteLength(message), done: queued });
    if (!this.draining.has(partition)) void this.drain(partition, queue);
    return queued.promise;
  }

  /** Publishes the partition's queued records, a batch at a time, until none is left. */
  private async drain(partition: number, queue: QueuedRecord[]): Promise<void> {
    this.draining.add(partition);
    try {
      while (queue.length > 0) {
        const batch = takeBatch(queue, this.maxRecordBytes());
        try {
          // A record queued before this node dropped and re-claimed the partition would land after the
          // new claim under its old epoch: acknowledged, then skipped by replay's epoch filter. Refused.
          if (this.epochs.get(partition) !== batch[0]!.epoch) throw new Fenced(partition);
          let seq = 0;
          for (const message of partsOf(batchMessage(batch, this.nodeId), this.maxRecordBytes()))
            seq = await this.publishFenced(partition, message);
          for (const record of batch) record.done.resolve(seq);
        } catch (error) {
          for (const record of batch) record.done.reject(error);
        }
      }
    } finally {
      this.draining.delete(partition);
      if (queue.length === 0 && this.queues.get(partition) === queue) this.queues.delete(partition);
    }
  }

  private async publishFenced(partition: number, message: string): Promise<number> {
    const expected = this.lastSeq.get(partition);
    if (expected === undefined) throw new Fenced(partition);
    try {
      const ack = await this.js.publish(logSubject(partition), message, {
        expect: { lastSubjectSequence: expected },
      });
      this.lastSeq.set(partition, ack.seq);
      return ack.seq;
    } catch (error) {
      if (/wrong last sequence/.test(String(error))) {
        this.forget(partition);
        throw new Fenced(partition);
      }
      throw error;
    }
  }

  forget(partition: number): void {
    this.lastSeq.delete(partition);
    this.epochs.delete(partition);
  }
}

/** A record waiting for its partition's append: the callers' promise settles with its message. */
interface QueuedRecord {
  epoch: number;
  message: string;
  bytes: number;
  done: PromiseWithResolvers<number>;
}

/** Room in a batch message for its own fields around the records. */
const BATCH_OVERHEAD = 256;

/**
 * The records of the next message, taken from the queue's head: one record over one message
 * alone (it goes in parts), else as many as fit one message, all of one epoch (a record queued
 * before a new claim must not ride under the new epoch).
 */
function takeBatch(queue: QueuedRecord[], maxBytes: number): QueuedRecord[] {
  const batch = [queue.shift()!];
  let bytes = batch[0]!.bytes + BATCH_OVERHEAD;
  if (bytes > maxBytes) return batch;
  while (queue.length > 0 && queue[0]!.epoch === batch[0]!.epoch && bytes + queue[0]!.bytes + 1 <= maxBytes) {
    bytes += queue[0]!.bytes + 1;
    batch.push(queue.shift()!);
  }
  return batch;
}

/** One record as it was; several as a `batch` record holding them in order (see unbatched). */
function batchMessage(batch: QueuedRecord[], nodeId: string): string {
  if (batch.length === 1) return batch[0]!.message;
  const head = `{"type":"batch","node":${JSON.stringify(nodeId)},"epoch":${batch[0]!.epoch},"records":[`;
  return `${head}${batch.map((record) => record.message).join(",")}]}`;
}

/** The records one log message holds: a batch's records in order, else the record itself. */
export function unbatched<R extends { type: string }>(record: R): R[] {
  return record.type === "batch" ? ((record as unknown as { records: R[] }).records ?? []) : [record];
}

/** A record that fits one message as is, else its UTF-8 bytes in base64 `part` records (never escaped). */
function partsOf(message: string, maxBytes: number): string[] {
  const bytes = Buffer.from(message, "utf8");
  if (bytes.length <= maxBytes) return [message];
  const chunk = Math.floor(((maxBytes - 256) * 3) / 4);
  const parts = Math.ceil(bytes.length / chunk);
  return Array.from({ length: parts }, (_, part) =>
    JSON.stringify({
      type: "part",
      part,
      parts,
      data: bytes.subarray(part * chunk, (part + 1) * chunk).toString("base64"),
    }),
  );
}

/**
 * Joins the `part` records of one large record as replay reads them. The parts of one record are
 * consecutive on the subject (appends of a partition are serialised); a record cut short (its
 * writer died or was fenced mid-way, so it was never acknowledged) is dropped at the next record.
 */
export class Reassembly {
  private pending: Buffer[] = [];

  /** The record this message completes (itself when whole), or undefined while parts are missing. */
  add(message: { type: string; part?: number; parts?: number; data?: string }): LogRecord | undefined {
    if (message.type !== "part") {
      this.pending = [];
      return message as LogRecord;
    }
    if (message.part === 0) this.pending = [];
    if (message.part !== this.pending.length) {
      this.pending = [];
      return undefined;
    }
    this.pending.push(Buffer.from(message.data ?? "", "base64"));
    if (this.pending.length !== message.parts) return undefined;
    const whole = Buffer.concat(this.pending).toString("utf8");
    this.pending = [];
    return JSON.parse(whole) as LogRecord;
  }
}
