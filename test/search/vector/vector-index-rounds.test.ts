import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import fc from "fast-check";
import { inlineGraphBuilder, threadGraphBuilder } from "../../../src/search/vector/graph-builder.ts";
import { type GraphRound, VectorIndex } from "../../../src/search/vector/vector-index.ts";
import { pollUntil } from "../../helpers/poll.ts";
import { randomUnitVectors } from "./random-vectors.ts";

const DIMS = 32;
const root = mkdtempSync(join(tmpdir(), "vector-rounds-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pool = randomUnitVectors(4000, DIMS, 31);
const idOf = (i: number) => i.toString(16).padStart(8, "0");
const builder = inlineGraphBuilder();
let dirs = 0;

/** An index with a file (rounds need one), every search through the graph once it has one. */
function openIndex(dir = join(root, `i${++dirs}`)) {
  const file = join(dir, "vectors.usearch");
  const index = VectorIndex.open({ file, dims: DIMS, exactThreshold: 0, threads: 1 });
  return { dir, file, index };
}

async function adopt(index: VectorIndex, round: GraphRound | undefined): Promise<void> {
  if (!round) throw new Error("no round");
  index.finishRound(round, await builder.build(round.input));
}

const top = (index: VectorIndex, vec: Float32Array) => index.search(vec, 1)[0];
const roundFiles = (dir: string) => readdirSync(dir).filter((f) => f.includes(".round"));

describe("VectorIndex: the graph built in rounds", () => {
  test("a round's rows are searched as tail rows while it builds, then as graph rows", async () => {
    const { dir, index } = openIndex();
    for (let i = 0; i < 400; i++) index.add(idOf(i), pool[i]!);
    const round = index.beginRound();
    expect(index.building).toBe(true);
    expect(index.pending).toBe(400);
    // One round at a time.
    expect(index.beginRound()).toBeUndefined();
    expect(top(index, pool[7]!)?.id).toBe(idOf(7));
    await adopt(index, round);
    expect(index.building).toBe(false);
    expect(index.pending).toBe(0);
    for (let i = 0; i < 400; i += 37)
      expect(top(index, pool[i]!)).toEqual({ id: idOf(i), score: expect.closeTo(1, 3) });
    expect(roundFiles(dir)).toEqual([]);
    index.close();
  });

  test("rows removed or replaced during a round are never answered with their old vectors", async () => {
    const { file, index } = openIndex();
    for (let i = 0; i < 300; i++) index.add(idOf(i), pool[i]!);
    await adopt(index, index.beginRound());
    for (let i = 300; i < 600; i++) index.add(idOf(i), pool[i]!);
    const round = index.beginRound();
    // Graph rows and in-flight rows, removed and replaced, and new tail rows behind them.
    index.remove(idOf(10)); // graph
    index.remove(idOf(450)); // in flight
    index.add(idOf(20), pool[3000]!); // graph, replaced
    index.add(idOf(500), pool[3001]!); // in flight, replaced
    for (let i = 600; i < 650; i++) index.add(idOf(i), pool[i]!);
    index.remove(idOf(620)); // tail
    await adopt(index, round);
    const expected = new Map<string, Float32Array>();
    for (let i = 0; i < 650; i++) if (![10, 450, 620].includes(i)) expected.set(idOf(i), pool[i]!);
    expected.set(idOf(20), pool[3000]!);
    expected.set(idOf(500), pool[3001]!);
    const check = (index: VectorIndex) => {
      expect(index.size).toBe(expected.size);
      for (const [id, vec] of expected) expect(top(index, vec)?.id).toBe(id);
      const everything = index.search(pool[10]!, 1000).map((hit) => hit.id);
      expect(everything).not.toContain(idOf(10));
      expect(everything).not.toContain(idOf(450));
      // The old vectors of replaced ids find something else now, never them with a score of 1.
      expect(top(index, pool[20]!)?.id).not.toBe(idOf(20));
      expect(top(index, pool[500]!)?.id).not.toBe(idOf(500));
    };
    check(index);
    // The next round drops the removed keys from the file and takes the tail.
    const next = index.beginRound();
    expect(next?.input.removals.length).toBe(4);
    await adopt(index, next);
    expect(index.pending).toBe(0);
    check(index);
    index.save();
    index.close();
    check(VectorIndex.open({ file, dims: DIMS, exactThreshold: 0 }));
  });

  test("a round of a dropped graph or a closed index is not adopted, and its file goes", async () => {
    const { dir, index } = openIndex();
    for (let i = 0; i < 200; i++) index.add(idOf(i), pool[i]!);
    const dropped = index.beginRound()!;
    // Built in place instead (the bench's "flush everything"): the round under way is dropped.
    index.flush();
    expect(index.pending).toBe(0);
    await adopt(index, dropped);
    expect(index.pending).toBe(0);
    expect(roundFiles(dir)).toEqual([]);
    for (let i = 200; i < 250; i++) index.add(idOf(i), pool[i]!);
    const closed = index.beginRound()!;
    index.close();
    index.finishRound(closed, await builder.build(closed.input));
    expect(roundFiles(dir)).toEqual([]);
  });

  test("a failed round leaves its rows in the tail and its removals for the next", async () => {
    const { index } = openIndex();
    for (let i = 0; i < 200; i++) index.add(idOf(i), pool[i]!);
    await adopt(index, index.beginRound());
    index.remove(idOf(5));
    index.add(idOf(900), pool[900]!);
    const failed = index.beginRound()!;
    index.finishRound(failed, new Error("the thread died"));
    expect(index.building).toBe(false);
    expect(index.pending).toBe(1);
    expect(top(index, pool[900]!)?.id).toBe(idOf(900));
    const retry = index.beginRound()!;
    expect([...retry.input.removals]).toEqual([5n]);
    await adopt(index, retry);
    expect(index.pending).toBe(0);
    expect(top(index, pool[900]!)?.id).toBe(idOf(900));
  });

  test("round files left by an earlier process are removed at open; an index without a file has no rounds", () => {
    const { dir, file, index } = openIndex();
    index.add(idOf(1), pool[1]!);
    index.save();
    index.close();
    writeFileSync(`${file}.round7`, "left behind");
    VectorIndex.open({ file, dims: DIMS }).close();
    expect(roundFiles(dir)).toEqual([]);
    const memoryOnly = VectorIndex.open({ dims: DIMS });
    memoryOnly.add(idOf(1), pool[1]!);
    expect(memoryOnly.beginRound()).toBeUndefined();
  });

  test("any interleaving of writes, removals and rounds answers exactly the vectors held", async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), id: fc.nat(19) }),
      fc.record({ kind: fc.constant("remove" as const), id: fc.nat(19) }),
      fc.record({ kind: fc.constant("begin" as const) }),
      fc.record({ kind: fc.constant("finish" as const), fail: fc.boolean() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const { index } = openIndex();
        const held = new Map<string, Float32Array>();
        let next = 0;
        let round: GraphRound | undefined;
        const finish = async (fail: boolean) => {
          if (!round) return;
          index.finishRound(round, fail ? new Error("failed") : await builder.build(round.input));
          round = undefined;
        };
        for (const o of ops) {
          if (o.kind === "add") {
            const vec = pool[next++ % pool.length]!;
            index.add(idOf(o.id), vec);
            held.set(idOf(o.id), vec);
          } else if (o.kind === "remove") {
            index.remove(idOf(o.id));
            held.delete(idOf(o.id));
          } else if (o.kind === "begin") {
            round ??= index.beginRound();
          } else await finish(o.fail);
        }
        await finish(false);
        // Then rounds until everything is in the graph, and the answers again.
        for (let i = 0; i < 3 && index.pending > 0; i++) {
          round = index.beginRound();
          await finish(false);
        }
        expect(index.size).toBe(held.size);
        expect(index.pending).toBe(0);
        for (const [id, vec] of held) expect(top(index, vec)).toEqual({ id, score: expect.closeTo(1, 3) });
        const answered = index.search(pool[0]!, 100).map((hit) => hit.id);
        expect(answered.sort()).toEqual([...held.keys()].sort());
        index.close();
      }),
      { numRuns: 150, seed: 20261203 },
    );
  });
});

describe("the build thread", () => {
  test("builds a round off the caller's thread; after stop it refuses", async () => {
    const thread = threadGraphBuilder();
    const { index } = openIndex();
    for (let i = 0; i < 500; i++) index.add(idOf(i), pool[i]!);
    const round = index.beginRound()!;
    index.finishRound(round, await thread.build(round.input));
    expect(index.pending).toBe(0);
    expect(top(index, pool[123]!)?.id).toBe(idOf(123));
    thread.stop();
    for (let i = 500; i < 510; i++) index.add(idOf(i), pool[i]!);
    const refused = index.beginRound()!;
    await expect(thread.build(refused.input)).rejects.toThrow("stopped");
    index.close();
  });

  test("stopping the thread builder mid-round fails the round at once; the thread finishes its file, then ends", async () => {
    const thread = threadGraphBuilder();
    const { dir, index } = openIndex();
    for (let i = 0; i < 4000; i++) index.add(idOf(i), pool[i]!);
    const round = index.beginRound()!;
    const built = thread.build(round.input);
    thread.stop();
    // Terminating a thread inside usearch could abort the process: it is left to end itself.
    await expect(built).rejects.toThrow("stopped");
    // Its file is written beside (`.tmp`), synced, then renamed: polled until it has its name.
    const written = await pollUntil(
      () => roundFiles(dir),
      (files) => files.length === 1 && !files[0]!.endsWith(".tmp"),
    );
    expect(written).toEqual([basename(round.input.out)]);
    index.finishRound(round, new Error("the builder stopped"));
    expect(roundFiles(dir)).toEqual([]);
    expect(index.pending).toBe(4000);
    index.close();
  });
});
