import { describe, expect, test } from "bun:test";
import { Mailbox } from "../../src/runtime/mailbox.ts";
import { afterPendingMicrotasks } from "../helpers/turn.ts";

describe("Mailbox", () => {
  test("runs jobs one at a time in enqueue order: the next starts only once the one before has ended", async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const gates = new Map<string, () => void>();
    const job = (name: string) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      log.push(`start ${name}`);
      await new Promise<void>((release) => gates.set(name, release));
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = Promise.all([
      mailbox.enqueue(job("a")),
      mailbox.enqueue(job("b")),
      mailbox.enqueue(job("c")),
    ]);
    // Each job holds until the test opens its gate: a mailbox that ran jobs alongside each other
    // would have started the next one by the time the pending microtasks have run.
    for (const name of ["a", "b", "c"]) {
      await afterPendingMicrotasks();
      expect(log.filter((line) => line.startsWith("start")).at(-1)).toBe(`start ${name}`);
      expect(running).toBe(1);
      gates.get(name)!();
    }
    expect(await results).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(maxRunning).toBe(1);
  });

  test("an error in one job rejects only that job; the next job still runs", async () => {
    const mailbox = new Mailbox();
    const failing = mailbox.enqueue(async () => {
      throw new Error("boom");
    });
    const failingSync = mailbox.enqueue(() => {
      throw new Error("sync boom");
    });
    const next = mailbox.enqueue(() => "still running");
    await expect(failing).rejects.toThrow("boom");
    await expect(failingSync).rejects.toThrow("sync boom");
    expect(await next).toBe("still running");
    expect(mailbox.depth).toBe(0);
  });

  test("synchronous jobs never stall the chain", async () => {
    const mailbox = new Mailbox();
    const seen: number[] = [];
    const all: Promise<number>[] = [];
    for (let i = 0; i < 5000; i++) {
      all.push(
        mailbox.enqueue(() => {
          seen.push(i);
          return i;
        }),
      );
    }
    // A later job enqueued after a burst of synchronous ones must still run.
    const last = mailbox.enqueue(() => "last");
    // A stall would leave this await pending and fail the test on its timeout.
    const [values, lastValue] = await Promise.all([Promise.all(all), last]);
    expect(values).toHaveLength(5000);
    expect(lastValue).toBe("last");
    expect(seen.length).toBe(5000);
    expect(seen.every((v, i) => v === i)).toBe(true);
  });

  test("a synchronous job enqueued from inside a job runs after it", async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    let inner: Promise<void> | undefined;
    await mailbox.enqueue(() => {
      log.push("outer");
      inner = mailbox.enqueue(() => {
        log.push("inner");
      });
    });
    await inner;
    expect(log).toEqual(["outer", "inner"]);
  });

  test("depth counts unsettled jobs and drained() waits for all of them", async () => {
    const mailbox = new Mailbox();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    mailbox.enqueue(() => gate);
    mailbox.enqueue(() => undefined);
    mailbox
      .enqueue(async () => {
        throw new Error("ignored by drained");
      })
      .catch(() => undefined);
    expect(mailbox.depth).toBe(3);
    let drained = false;
    const d = mailbox.drained().then(() => {
      drained = true;
    });
    await afterPendingMicrotasks();
    expect(drained).toBe(false);
    release();
    await d;
    expect(drained).toBe(true);
    expect(mailbox.depth).toBe(0);
  });
});
