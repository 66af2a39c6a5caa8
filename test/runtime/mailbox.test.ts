import { describe, expect, test } from "bun:test";
import { Mailbox } from "../../src/runtime/mailbox.ts";

describe("Mailbox", () => {
  test("runs jobs one at a time in enqueue order, even when earlier jobs are slower", async () => {
    const mailbox = new Mailbox();
    const log: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const job = (name: string, ms: number) => async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      log.push(`start ${name}`);
      await Bun.sleep(ms);
      log.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([
      mailbox.enqueue(job("a", 15)),
      mailbox.enqueue(job("b", 1)),
      mailbox.enqueue(job("c", 5)),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
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
    const out = await Promise.race([
      Promise.all([Promise.all(all), last]),
      Bun.sleep(2000).then(() => "stalled" as const),
    ]);
    expect(out).not.toBe("stalled");
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
    await Bun.sleep(1);
    expect(drained).toBe(false);
    release();
    await d;
    expect(drained).toBe(true);
    expect(mailbox.depth).toBe(0);
  });
});
