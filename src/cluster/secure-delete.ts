/**
 * Removing tenant data from NATS for good (docs/cluster.md, "Erasure in cluster mode"). A purge
 * (and the object store's delete, which purges an object's chunks) takes messages out of
 * JetStream's index but leaves their bytes in the stream's message block files until nats-server
 * removes the block, once every message in it is gone (measured on 2.9.10: a block 95% purged
 * keeps its size and the purged text); the 64 partitions share `MR_LOG`'s blocks, so that may be
 * never. A message deleted with `erase` (the delete API's default, "secure delete") is
 * overwritten with random bytes on disk first. Erased entries and deleted tenants may be in any
 * message a compaction removes (the log below a snapshot, an older snapshot's files, written long
 * before the erasure), so every such message is deleted this way before the purge: measured
 * ~3 000 messages/s on loopback (a plain delete ~14 000/s), paid in the background by each
 * compaction.
 */
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { LOG_STREAM, logSubject } from "./names.ts";

/** Secure deletes in flight at once (each is one JetStream API request). */
const CONCURRENCY = 16;

/**
 * Deletes each message with `erase` (overwritten on disk, not only unindexed). A message already
 * gone (an earlier, interrupted pass) is fine.
 */
export async function secureDelete(jsm: JetStreamManager, stream: string, seqs: number[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < seqs.length) {
      const seq = seqs[next++]!;
      await jsm.streams.deleteMessage(stream, seq, true).catch((error) => {
        if (!/no message found/i.test(String(error))) throw error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, seqs.length) }, worker));
}

/** Overwrites an object's chunks (the object store's own delete only purges them); delete it after. */
export async function overwriteObject(js: JetStreamClient, bucket: string, nuid: string): Promise<void> {
  const stream = `OBJ_${bucket}`;
  const seqs = await sequencesOn(js, stream, `$O.${bucket}.C.${nuid}`);
  await secureDelete(await js.jetstreamManager(), stream, seqs);
}

/** Overwrites every message of the partition's log subject below `end`, which must be on it. */
export async function overwriteLogBelow(
  js: JetStreamClient,
  partition: number,
  end: number,
): Promise<number> {
  const seqs = await sequencesOn(js, LOG_STREAM, logSubject(partition), { below: end });
  await secureDelete(await js.jetstreamManager(), LOG_STREAM, seqs);
  return seqs.length;
}

/** The sequence of the first message on the partition's log subject (undefined: none). */
export async function firstSeqOnSubject(js: JetStreamClient, partition: number): Promise<number | undefined> {
  const [first] = await sequencesOn(js, LOG_STREAM, logSubject(partition), { limit: 1 });
  return first;
}

/**
 * The sequences of the messages on a subject, in order (headers only are read), at most `limit`
 * and below `below`.
 */
export async function sequencesOn(
  js: JetStreamClient,
  stream: string,
  subject: string,
  { below = Number.POSITIVE_INFINITY, limit = Number.POSITIVE_INFINITY } = {},
): Promise<number[]> {
  const jsm = await js.jetstreamManager();
  const info = await jsm.streams.info(stream, { subjects_filter: subject });
  const count = Math.min(info.state.subjects?.[subject] ?? 0, limit);
  const seqs: number[] = [];
  if (count === 0) return seqs;
  const consumer = await js.consumers.get(stream, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
    headers_only: true,
  });
  const messages = await consumer.consume();
  try {
    for await (const msg of messages) {
      if (msg.seq >= below) break;
      seqs.push(msg.seq);
      if (seqs.length >= count || msg.info.pending === 0) break;
    }
  } finally {
    await messages.close();
  }
  return seqs;
}
