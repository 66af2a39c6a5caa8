/**
 * A search's query vector never waits on the background queue (issue 30, item 5): the local model
 * serves its query lane first and takes background batches a small chunk at a time. The model is
 * a fake that answers only when the test releases a call, so the order of its calls is the
 * subject, never their timing.
 */
import { describe, expect, test } from "bun:test";
import { type EmbedItem, EmbedScheduler } from "../../src/embedding/embed-scheduler.ts";
import { LocalEmbedder } from "../../src/embedding/local-embedder.ts";
import { chunksOf, LocalModel } from "../../src/embedding/local-model.ts";
import type { SentenceEncoder } from "../../src/embedding/use-lite.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { afterPendingMicrotasks } from "../helpers/turn.ts";

/** A model whose every call waits for `releaseNext`; `calls` lists the texts of each, in order. */
class GatedModel implements SentenceEncoder {
  readonly calls: string[][] = [];
  private readonly held: Array<() => void> = [];
  private arrived: (() => void) | undefined;

  embed(texts: string[]): Promise<number[][]> {
    this.calls.push(texts);
    this.arrived?.();
    return new Promise((resolve) => this.held.push(() => resolve(texts.map(() => unit(512)))));
  }

  /** Resolves once `n` calls have reached the model. */
  async reached(n: number): Promise<void> {
    while (this.calls.length < n) await new Promise<void>((resolve) => (this.arrived = resolve));
  }

  /** Answers the call being computed (the model runs one at a time). */
  releaseNext(): void {
    this.held.shift()?.();
  }
}

const unit = (dims: number) => Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0));

/** A tenant backlog of `n` entries of ~300 characters: each is a chunk of its own. */
function backlog(n: number): {
  queue: Parameters<EmbedScheduler["attach"]>[1];
  stored: string[];
  drained: Promise<void>;
} {
  const items: EmbedItem[] = Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    id: `entry${String(i).padStart(3, "0")}`,
    text: `backlog entry ${i}: ${"the quarterly ledger review notes ".repeat(9)}`,
  }));
  const stored: string[] = [];
  let next = 0;
  let done = () => {};
  const drained = new Promise<void>((resolve) => (done = resolve));
  return {
    stored,
    drained,
    queue: {
      take: (max) => {
        const taken = items.slice(next, next + max);
        next += taken.length;
        return taken;
      },
      embedded: (batch) => {
        stored.push(...batch.map((item) => item.id));
        if (stored.length === n) done();
      },
      failed: () => undefined,
      pending: () => items.length - stored.length,
    },
  };
}

function runtimeOn(
  model: LocalModel,
  batchSize: number,
): { embedder: LocalEmbedder; scheduler: EmbedScheduler } {
  const embedder = new LocalEmbedder(model);
  const limits = { batchSize, concurrency: 1, backoffMs: 1_000, maxBackoffMs: 60_000 };
  const scheduler = new EmbedScheduler({
    embedder,
    signature: "local/512",
    clock: new ManualClock(),
    limits,
  });
  return { embedder, scheduler };
}

const QUERY = "who reviews the ledger";

describe("the query lane of the local model", () => {
  test("with a backlog of 24 queued, a query's vector is made before the rest of the backlog", async () => {
    const gated = new GatedModel();
    const { embedder, scheduler } = runtimeOn(new LocalModel({ load: async () => gated }), 8);
    const { queue, stored, drained } = backlog(24);
    scheduler.attach("tenant-a", queue);
    await gated.reached(1);

    const query = embedder.embed([QUERY]);
    gated.releaseNext();
    await gated.reached(2);
    // The batch of 8 is taken a chunk (one long entry) at a time: the query goes after the first.
    expect(gated.calls[0]).toHaveLength(1);
    expect(gated.calls[1]).toEqual([QUERY]);
    gated.releaseNext();
    expect(await query).toHaveLength(1);

    // 25 calls: the first chunk, the query, then the other 23 entries one a call.
    for (let call = 3; call <= 25; call++) {
      await gated.reached(call);
      gated.releaseNext();
    }
    await drained;
    scheduler.stop();
    const texts = gated.calls.flat();
    expect(texts.indexOf(QUERY)).toBe(1);
    expect(texts.filter((t) => t !== QUERY)).toHaveLength(24);
    expect(stored).toHaveLength(24);
  });

  test("a query goes before the background batches of every runtime sharing the model", async () => {
    const gated = new GatedModel();
    const model = new LocalModel({ load: async () => gated });
    const a = runtimeOn(model, 2);
    const b = runtimeOn(model, 2);
    a.scheduler.attach("tenant-a", backlog(6).queue);
    await gated.reached(1);
    b.scheduler.attach("tenant-b", backlog(6).queue);
    // Runtime b's batch waits for the model; the query arrives after it and still goes first.
    await afterPendingMicrotasks();
    const query = b.embedder.embed([QUERY]);
    gated.releaseNext();
    await gated.reached(2);
    expect(gated.calls[1]).toEqual([QUERY]);
    gated.releaseNext();
    await query;
    a.scheduler.stop();
    b.scheduler.stop();
    gated.releaseNext();
  });

  test("without the query lane (the baseline) the query waits behind the whole batch", async () => {
    const gated = new GatedModel();
    const model = new LocalModel({
      load: async () => gated,
      queryLane: false,
      backgroundChunkChars: Number.POSITIVE_INFINITY,
    });
    const { embedder, scheduler } = runtimeOn(model, 8);
    scheduler.attach("tenant-a", backlog(24).queue);
    await gated.reached(1);
    const query = embedder.embed([QUERY]);
    gated.releaseNext();
    await gated.reached(2);
    expect(gated.calls[0]).toHaveLength(8);
    expect(gated.calls[1]).toEqual([QUERY]);
    gated.releaseNext();
    await query;
    scheduler.stop();
  });

  test("query vectors stay cached; background vectors do not wash them out", async () => {
    const gated = new GatedModel();
    const embedder = new LocalEmbedder(new LocalModel({ load: async () => gated }), 1);
    const first = embedder.embed([QUERY]);
    await gated.reached(1);
    gated.releaseNext();
    await first;
    const background = embedder.embed(["an entry of the backlog"], "background");
    await gated.reached(2);
    gated.releaseNext();
    await background;
    await embedder.embed([QUERY]);
    expect(gated.calls).toEqual([[QUERY], ["an entry of the backlog"]]);
  });

  test("chunks hold at most the texts and characters allowed, a longer text alone, in order", () => {
    const texts = ["aaaa", "bb", "cccccccccc", "d", "e", "f"];
    expect(chunksOf(texts, 16, 6)).toEqual([["aaaa", "bb"], ["cccccccccc"], ["d", "e", "f"]]);
    expect(chunksOf(texts, 2, Number.POSITIVE_INFINITY)).toEqual([
      ["aaaa", "bb"],
      ["cccccccccc", "d"],
      ["e", "f"],
    ]);
    expect(chunksOf([], 2, 10)).toEqual([]);
  });
});
