/**
 * The background embedder's scheduler on a ManualClock, with a fake embedder whose calls the test
 * settles by hand: turns across tenants, its bounds (batch size, calls in flight), and the
 * backoff of a failing embedder.
 */
import { describe, expect, test } from "bun:test";
import { type EmbedItem, type EmbedQueue, EmbedScheduler } from "../../src/embedding/embed-scheduler.ts";
import type { Embedder } from "../../src/embedding/embedder.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

/** An embedder whose calls wait until the test answers or fails them, oldest first. */
class HeldEmbedder implements Embedder {
  readonly kind = "http" as const;
  readonly dims = 2;
  readonly calls: Array<{ texts: string[]; answer(): void; fail(message: string): void }> = [];

  embed(texts: string[]): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        texts,
        answer: () => resolve(texts.map(() => Float32Array.of(1, 0))),
        fail: (message) => reject(new Error(message)),
      });
    });
  }

  /** The calls in flight, once the batches started have reached the embedder (a turn each). */
  async inFlight(): Promise<string[][]> {
    await turn();
    return this.calls.map((c) => c.texts);
  }

  /** Settles the oldest open call; resolves once the scheduler has handled its outcome. */
  async settle(outcome: "answer" | "fail" = "answer"): Promise<string[]> {
    await turn();
    const call = this.calls.shift();
    if (!call) throw new Error("no call in flight");
    if (outcome === "answer") call.answer();
    else call.fail("service down");
    for (let i = 0; i < 5; i++) await Promise.resolve();
    return call.texts;
  }
}

/** The scheduler starts each batch on an event-loop turn of its own. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A tenant's queue of `n` texts named `<name>-<i>`, as the tenant's backlog behaves. */
class FakeQueue implements EmbedQueue {
  private readonly waiting: EmbedItem[];
  private readonly out = new Set<number>();
  readonly stored: string[] = [];

  constructor(name: string, n: number) {
    this.waiting = Array.from({ length: n }, (_, i) => ({
      seq: i + 1,
      id: `${name}-${i}`,
      text: `${name}-${i}`,
    }));
  }

  take(max: number): EmbedItem[] {
    const items = this.waiting.filter((item) => !this.out.has(item.seq)).slice(0, max);
    for (const item of items) this.out.add(item.seq);
    return items;
  }

  embedded(items: EmbedItem[]): void {
    for (const item of items) {
      this.waiting.splice(this.waiting.indexOf(item), 1);
      this.out.delete(item.seq);
      this.stored.push(item.text);
    }
  }

  failed(items: EmbedItem[]): void {
    for (const item of items) this.out.delete(item.seq);
  }
}

function scheduler(embedder: Embedder, clock: ManualClock, batchSize = 4, concurrency = 1): EmbedScheduler {
  const limits = { batchSize, concurrency, backoffMs: 1000, maxBackoffMs: 8000 };
  return new EmbedScheduler({ embedder, signature: "http//2", clock, limits });
}

describe("EmbedScheduler: fairness", () => {
  test("tenants take turns, one batch each: a large backlog does not hold back a small one", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock());
    const big = new FakeQueue("big", 20);
    const small = new FakeQueue("small", 2);
    s.attach("big", big);
    s.attach("small", small);
    expect(await embedder.settle()).toEqual(["big-0", "big-1", "big-2", "big-3"]);
    expect(await embedder.settle()).toEqual(["small-0", "small-1"]);
    expect(await embedder.settle()).toEqual(["big-4", "big-5", "big-6", "big-7"]);
    expect(small.stored).toEqual(["small-0", "small-1"]);
  });

  test("a tenant woken later joins the turns after those already waiting", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock());
    s.attach("a", new FakeQueue("a", 8));
    s.attach("b", new FakeQueue("b", 8));
    const late = new FakeQueue("c", 1);
    s.attach("c", late);
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push((await embedder.settle())[0]!);
    expect(order).toEqual(["a-0", "b-0", "c-0", "a-4"]);
  });

  test("a detached tenant is not asked again", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock());
    const detach = s.attach("a", new FakeQueue("a", 8));
    detach();
    s.wake("a");
    expect(await embedder.inFlight()).toHaveLength(1);
    await embedder.settle();
    expect(await embedder.inFlight()).toHaveLength(0);
  });
});

describe("EmbedScheduler: bounds", () => {
  test("no call holds more than the batch size, and no more calls than the concurrency are in flight", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock(), 3, 2);
    s.attach("a", new FakeQueue("a", 10));
    s.attach("b", new FakeQueue("b", 10));
    expect((await embedder.inFlight()).map((texts) => texts.length)).toEqual([3, 3]);
    expect(s.state()).toMatchObject({ state: "embedding", in_flight: 2 });
    await embedder.settle();
    const next = await embedder.inFlight();
    expect(next).toHaveLength(2);
    expect(next.every((texts) => texts.length <= 3)).toBe(true);
    while ((await embedder.inFlight()).length > 0) await embedder.settle();
    expect(s.state()).toMatchObject({ state: "idle", in_flight: 0, embedded: 20 });
  });

  test("items in flight are not handed out twice; an emptied queue is asked again only when woken", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock(), 4, 3);
    const queue = new FakeQueue("a", 2);
    s.attach("a", queue);
    expect(await embedder.inFlight()).toEqual([["a-0", "a-1"]]);
    await embedder.settle();
    s.wake("a");
    expect(await embedder.inFlight()).toHaveLength(0);
    expect(queue.stored).toEqual(["a-0", "a-1"]);
  });

  test("each batch starts on an event-loop turn of its own: waiting I/O is served between batches", async () => {
    const marks: string[] = [];
    const instant: Embedder = {
      kind: "local",
      dims: 2,
      embed: async (texts) => {
        marks.push(`batch ${texts[0]}`);
        return texts.map(() => Float32Array.of(1, 0));
      },
    };
    const s = scheduler(instant, new ManualClock(), 2);
    s.attach("a", new FakeQueue("a", 6));
    setImmediate(() => marks.push("request"));
    for (let i = 0; i < 6; i++) await turn();
    // Asked for while the first batch was waiting for its turn: served before the second.
    expect(marks).toEqual(["batch a-0", "request", "batch a-2", "batch a-4"]);
  });

  test("after stop no batch starts", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock(), 2);
    s.attach("a", new FakeQueue("a", 6));
    expect(await embedder.inFlight()).toHaveLength(1);
    s.stop();
    await embedder.settle();
    s.wake("a");
    expect(await embedder.inFlight()).toHaveLength(0);
    expect(s.state()).toMatchObject({ in_flight: 0 });
  });

  test("a batch waiting for its turn when the scheduler stops is not started", async () => {
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, new ManualClock(), 2);
    s.attach("a", new FakeQueue("a", 6));
    s.stop();
    expect(await embedder.inFlight()).toHaveLength(0);
    expect(s.state()).toMatchObject({ in_flight: 0 });
  });
});

describe("EmbedScheduler: a failing embedder", () => {
  test("its batch goes back to the queue and the next waits 1 s, 2 s, 4 s … up to the ceiling", async () => {
    const clock = new ManualClock();
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, clock);
    const queue = new FakeQueue("a", 2);
    s.attach("a", queue);
    const start = clock.now();
    const waits: number[] = [];
    for (let failure = 1; failure <= 5; failure++) {
      await embedder.settle("fail");
      const state = s.state();
      expect(state).toMatchObject({ state: "retrying", failures: failure, last_error: "service down" });
      const wait = Date.parse(state.retry_at!) - clock.now();
      waits.push(wait);
      clock.advance(wait - 1);
      expect(await embedder.inFlight()).toHaveLength(0);
      clock.advance(1);
      expect(await embedder.inFlight()).toEqual([["a-0", "a-1"]]);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(s.state().last_error_at).toBe(new Date(start + 1000 + 2000 + 4000 + 8000).toISOString());
    await embedder.settle();
    expect(queue.stored).toEqual(["a-0", "a-1"]);
    expect(s.state()).toMatchObject({ state: "idle", failures: 0, embedded: 2, last_error: "service down" });
    expect(s.state().retry_at).toBeUndefined();
  });

  test("while it waits, a newly woken tenant waits too; then the turns resume, it first", async () => {
    const clock = new ManualClock();
    const embedder = new HeldEmbedder();
    const s = scheduler(embedder, clock);
    s.attach("a", new FakeQueue("a", 1));
    await embedder.settle("fail");
    s.attach("b", new FakeQueue("b", 1));
    expect(await embedder.inFlight()).toHaveLength(0);
    clock.advance(1000);
    // b was never served, a was (its batch failed): b's turn comes first.
    expect(await embedder.inFlight()).toEqual([["b-0"]]);
    await embedder.settle();
    expect(await embedder.inFlight()).toEqual([["a-0"]]);
  });

  test("an embedder that answers the wrong number of vectors is a failure", async () => {
    const clock = new ManualClock();
    const short: Embedder = { kind: "http", dims: 2, embed: async () => [Float32Array.of(1, 0)] };
    const s = scheduler(short, clock);
    const queue = new FakeQueue("a", 2);
    s.attach("a", queue);
    await turn();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(s.state()).toMatchObject({ state: "retrying", failures: 1 });
    expect(s.state().last_error).toContain("1 vectors for 2 texts");
    expect(queue.stored).toEqual([]);
  });

  test("`client` embeds nothing: no queue is ever asked", () => {
    const client: Embedder = { kind: "client", dims: 2, embed: async () => [] };
    const s = scheduler(client, new ManualClock());
    let asked = 0;
    const take = () => {
      asked++;
      return [];
    };
    s.attach("a", { take, embedded: () => undefined, failed: () => undefined });
    s.wake("a");
    expect(asked).toBe(0);
    expect(s.canEmbed).toBe(false);
  });
});
