/**
 * The removal of applied intake deliveries (src/cluster/intake-removal.ts), in-process with a fake
 * JetStream manager: each message is overwritten (deleted with `erase`) before it is acknowledged,
 * a failed overwrite offers the delivery again instead, a bounded number run at once and the
 * consumers wait for room past a bounded queue.
 */
import { describe, expect, test } from "bun:test";
import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { IntakeRemovals } from "../../src/cluster/intake-removal.ts";
import { pollUntil } from "../helpers/poll.ts";

interface Delete {
  stream: string;
  seq: number;
  erase: boolean | undefined;
  settle: (error?: Error) => void;
}

/** A manager whose deletes stay in flight until the test settles them. */
function fakeManager() {
  const deletes: Delete[] = [];
  const jsm = {
    streams: {
      deleteMessage: (stream: string, seq: number, erase?: boolean) =>
        new Promise<boolean>((resolve, reject) => {
          deletes.push({ stream, seq, erase, settle: (error) => (error ? reject(error) : resolve(true)) });
        }),
    },
  } as unknown as JetStreamManager;
  return { jsm, deletes };
}

/** A delivery message recording what was done to it, in order. */
function fakeMessage(seq: number, events: string[]) {
  return {
    seq,
    subject: "mr.intake.07",
    ack: () => events.push(`ack ${seq}`),
    nak: (delay?: number) => events.push(`nak ${seq} ${delay}`),
  } as unknown as JsMsg;
}

describe("intake removals", () => {
  test("each applied delivery is overwritten, then acknowledged", async () => {
    const { jsm, deletes } = fakeManager();
    const events: string[] = [];
    const removals = new IntakeRemovals(jsm, "MR_INTAKE", () => {});
    await removals.remove(fakeMessage(5, events));
    expect(deletes.map((d) => [d.stream, d.seq, d.erase])).toEqual([["MR_INTAKE", 5, true]]);
    expect(events).toEqual([]);
    deletes[0]!.settle();
    await pollUntil(
      () => events.length,
      (n) => n > 0,
    );
    expect(events).toEqual(["ack 5"]);
  });

  test("a message already gone is acknowledged; a failed overwrite offers the delivery again", async () => {
    const { jsm, deletes } = fakeManager();
    const events: string[] = [];
    const lines: string[] = [];
    const removals = new IntakeRemovals(jsm, "MR_INTAKE", (line) => lines.push(line));
    await removals.remove(fakeMessage(1, events));
    await removals.remove(fakeMessage(2, events));
    deletes[0]!.settle(new Error("no message found"));
    deletes[1]!.settle(new Error("TIMEOUT"));
    await pollUntil(
      () => events.length,
      (n) => n === 2,
    );
    expect(events.sort()).toEqual(["ack 1", "nak 2 1000"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("mr.intake.07#2");
  });

  test("16 overwrites run at once; past 64 waiting, a consumer waits for room", async () => {
    const { jsm, deletes } = fakeManager();
    const events: string[] = [];
    const removals = new IntakeRemovals(jsm, "MR_INTAKE", () => {});
    for (let seq = 1; seq <= 16 + 64; seq++) await removals.remove(fakeMessage(seq, events));
    expect(deletes).toHaveLength(16);
    let queued = false;
    const next = removals.remove(fakeMessage(81, events)).then(() => {
      queued = true;
    });
    await new Promise((resolve) => setImmediate(resolve)); // a turn of the event loop: still waiting
    expect(queued).toBe(false);
    deletes[0]!.settle();
    await next;
    expect(queued).toBe(true);
    expect(deletes).toHaveLength(17);
    expect(deletes[16]!.seq).toBe(17);
    // Settle the rest as they start: every message is overwritten, then acknowledged, once.
    let settled = 1;
    await pollUntil(
      () => {
        for (; settled < deletes.length; settled++) deletes[settled]!.settle();
        return events.length;
      },
      (n) => n === 81,
    );
    expect(deletes).toHaveLength(81);
    expect(new Set(events).size).toBe(81);
    expect(events.every((e) => e.startsWith("ack "))).toBe(true);
  });

  test("settled() waits for every removal asked for before it, including those waiting for room", async () => {
    const { jsm, deletes } = fakeManager();
    const events: string[] = [];
    const removals = new IntakeRemovals(jsm, "MR_INTAKE", () => {});
    // 16 in flight, 64 queued, one more waiting for room: 81 removals asked for.
    for (let seq = 1; seq <= 80; seq++) await removals.remove(fakeMessage(seq, events));
    void removals.remove(fakeMessage(81, events));
    let settled = false;
    const waiting = removals.settled().then(() => {
      settled = true;
    });
    // Settling them one by one, in the order they started: settled only after the 81st.
    for (let n = 0; n < 81; n++) {
      await pollUntil(
        () => deletes.length,
        (count) => count > n,
      );
      expect(settled).toBe(false);
      deletes[n]!.settle();
    }
    await waiting;
    expect(events.filter((e) => e.startsWith("ack"))).toHaveLength(81);
    // Asked after everything finished: nothing to wait for.
    await removals.settled();
  });
});
