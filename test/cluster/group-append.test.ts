/**
 * Group append on the partition changelog (src/cluster/fence.ts) against a real nats-server:
 * records queued while an append is in flight go as one `batch` message, in call order, each
 * caller answered with that message's sequence; a record over one message still goes alone, in
 * parts; records of an older epoch never ride under a newer claim.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DeliverPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Fenced, type LogRecord, PartitionLog, Reassembly, unbatched } from "../../src/cluster/fence.ts";
import { LOG_STREAM, LOG_SUBJECTS, logSubject } from "../../src/cluster/names.ts";
import { type NatsServer, startNatsServer } from "../helpers/nats-server.ts";

let nats: NatsServer;
let nc: NatsConnection;

/** The partition's log after `afterSeq`, as records (parts joined, batches opened) with their message's sequence. */
async function recordsAfter(partition: number, afterSeq: number) {
  const consumer = await jetstream(nc).consumers.get(LOG_STREAM, {
    filter_subjects: logSubject(partition),
    opt_start_seq: afterSeq + 1,
    deliver_policy: DeliverPolicy.StartSequence,
  });
  const info = await (await jetstreamManager(nc)).streams.info(LOG_STREAM);
  const last = info.state.last_seq;
  const reassembly = new Reassembly();
  const records: Array<{ seq: number; record: LogRecord }> = [];
  let messages = 0;
  for (;;) {
    const msg = await consumer.next({ expires: 2000 });
    if (!msg) break;
    messages++;
    const whole = reassembly.add(msg.json());
    for (const record of whole ? unbatched(whole) : []) records.push({ seq: msg.seq, record });
    if (msg.seq >= last) break;
  }
  return { records, messages };
}

describe("changelog group append", () => {
  beforeAll(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    await (await jetstreamManager(nc)).streams.add({ name: LOG_STREAM, subjects: [LOG_SUBJECTS] });
  });
  afterAll(async () => {
    await nc?.close();
    await nats.stop();
  });

  test("appends made while one is in flight go as one batch message, in call order", async () => {
    const log = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "g1");
    const epoch = await log.claim(5);
    const seqs = await Promise.all(
      Array.from({ length: 40 }, (_, n) => log.append(5, epoch, { type: "write", n })),
    );
    const { records, messages } = await recordsAfter(5, epoch);
    expect(records.map((r) => r.record.n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    // The first goes alone; the 39 queued behind it share the next message(s).
    expect(messages).toBeLessThan(40);
    expect(messages).toBeGreaterThan(1);
    // Each caller was answered with the sequence of the message that holds its record.
    expect(seqs).toEqual(records.map((r) => r.seq));
    for (const { record } of records) expect(record).toMatchObject({ node: "g1", epoch, type: "write" });
  });

  test("a record over one message goes alone, in parts, between batches", async () => {
    const log = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "g2", () => 4096);
    const epoch = await log.claim(6);
    const big = "x".repeat(10_000);
    const appends = [
      log.append(6, epoch, { type: "write", n: 0 }),
      log.append(6, epoch, { type: "write", n: 1 }),
      log.append(6, epoch, { type: "write", n: 2, big }),
      log.append(6, epoch, { type: "write", n: 3 }),
    ];
    const seqs = await Promise.all(appends);
    const { records } = await recordsAfter(6, epoch);
    expect(records.map((r) => r.record.n)).toEqual([0, 1, 2, 3]);
    expect(records[2]!.record.big).toBe(big);
    expect(seqs).toEqual(records.map((r) => r.seq));
  });

  test("a record queued under an older claim of this node is refused, never published under the new one", async () => {
    const log = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "g3");
    const first = await log.claim(7);
    // The node dropped the partition and claimed it again: records of `first` may still be queued.
    const second = await log.claim(7);
    const outcomes = await Promise.allSettled([
      log.append(7, first, { type: "write", n: 0 }),
      log.append(7, second, { type: "write", n: 1 }),
      log.append(7, second, { type: "write", n: 2 }),
    ]);
    expect(outcomes[0]).toMatchObject({ status: "rejected", reason: expect.any(Fenced) });
    expect(outcomes.slice(1).map((o) => o.status)).toEqual(["fulfilled", "fulfilled"]);
    const { records } = await recordsAfter(7, second);
    expect(records.map((r) => [r.record.n, r.record.epoch])).toEqual([
      [1, second],
      [2, second],
    ]);
  });

  test("a forgotten partition refuses every queued record", async () => {
    const log = new PartitionLog(jetstream(nc), await jetstreamManager(nc), "g4");
    const epoch = await log.claim(8);
    log.forget(8);
    await expect(log.append(8, epoch, { type: "write", n: 0 })).rejects.toBeInstanceOf(Fenced);
    const last = await (await jetstreamManager(nc)).streams.getMessage(LOG_STREAM, {
      last_by_subj: logSubject(8),
    });
    expect(last?.seq).toBe(epoch);
  });
});
