import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeHalf, dotHalf, encodeHalf } from "../../../src/search/vector/vector-codec.ts";
import { VectorIndex, VectorIndexUnreadable } from "../../../src/search/vector/vector-index.ts";
import { randomUnitVectors } from "./random-vectors.ts";
import { syntheticId } from "./synthetic-corpus.ts";

const DIMS = 64;
const dir = mkdtempSync(join(tmpdir(), "vector-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const vectors = randomUnitVectors(3000, DIMS, 7);
const queries = randomUnitVectors(20, DIMS, 8);

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function filled(n: number, opts: Partial<Parameters<typeof VectorIndex.open>[0]> = {}): VectorIndex {
  const index = VectorIndex.open({ dims: DIMS, threads: 1, ...opts });
  for (let i = 0; i < n; i++) index.add(syntheticId(i), vectors[i]!);
  return index;
}

/** A vectors file as the index wrote it before float16 rows: header, keys, float32 rows. */
function writeVersion1(file: string, n: number): void {
  const header = new DataView(new ArrayBuffer(16));
  header.setUint32(0, 0x58564d54, true);
  header.setUint32(4, 1, true);
  header.setUint32(8, DIMS, true);
  header.setUint32(12, n, true);
  const keys = Uint32Array.from({ length: n }, (_, i) => Number.parseInt(syntheticId(i), 16));
  const rows = new Float32Array(n * DIMS);
  for (let i = 0; i < n; i++) rows.set(vectors[i]!, i * DIMS);
  writeFileSync(
    `${file}.vectors`,
    Buffer.concat([new Uint8Array(header.buffer), new Uint8Array(keys.buffer), new Uint8Array(rows.buffer)]),
  );
}

describe("float16 rows", () => {
  test("a row's score is the float32 cosine within 1e-4, and a vector scores 1 against itself", () => {
    for (let i = 0; i < 200; i++) {
      const { bits, invNorm } = encodeHalf(vectors[i]!);
      expect(dotHalf(vectors[i]!, bits, 0) * invNorm).toBeCloseTo(1, 6);
      const score = dotHalf(queries[i % 20]!, bits, 0) * invNorm;
      expect(Math.abs(score - cosine(queries[i % 20]!, vectors[i]!))).toBeLessThan(1e-4);
    }
  });

  test("encoding matches the platform's float16 rounding, subnormals and the largest values included", () => {
    const values = Float32Array.from([
      0, -0, 1, -1, 65504, 70_000, 6.1e-5, 5.96e-8, 2.98e-8, 1e-9, 0.1, -0.333, 1e-5,
    ]);
    const { bits } = encodeHalf(values);
    expect(Array.from(bits)).toEqual(Array.from(new Uint16Array(new Float16Array(values).buffer)));
    expect(decodeHalf(bits, 0, values.length)[10]).toBeCloseTo(0.1, 3);
  });

  test("every search path reports the same score for the same pair: tail, graph and exact scan", () => {
    const tail = filled(3000, { exactThreshold: 0 });
    const graph = filled(3000, { exactThreshold: 0 });
    graph.flush();
    const exact = filled(3000, { exactThreshold: 10_000 });
    exact.flush();
    for (const q of queries) {
      const best = exact.search(q, 1)[0]!;
      expect(tail.scorer(q)(best.id)).toBe(best.score);
      const fromGraph = graph.search(q, 10).find((hit) => hit.id === best.id);
      if (fromGraph) expect(fromGraph.score).toBe(best.score);
    }
  });
});

describe("the tail, scanned natively", () => {
  test("an index of nothing but tail answers what an exact scan of its rows answers", () => {
    const tail = filled(3000, { exactThreshold: 0 });
    expect(tail.pending).toBe(3000);
    const exact = filled(3000, { exactThreshold: 10_000 });
    exact.flush();
    for (const q of queries) {
      const truth = exact.search(q, 10);
      const found = tail.search(q, 10);
      // Tie-aware: a hit scoring at least the exact 10th best is a right answer.
      expect(found.filter((hit) => hit.score >= truth[9]!.score - 1e-7)).toHaveLength(10);
    }
  });

  test("graph and tail searched together: a replaced vector is found by its new value only", () => {
    const index = filled(2500, { exactThreshold: 0 });
    index.flush(2000);
    const id = syntheticId(5);
    index.add(id, vectors[2900]!);
    expect(index.search(vectors[2900]!, 1)[0]!.id).toBe(id);
    expect(index.search(vectors[5]!, 3).map((hit) => hit.id)).not.toContain(id);
    const hits = index.search(vectors[2900]!, 20);
    expect(new Set(hits.map((hit) => hit.id)).size).toBe(hits.length);
  });
});

describe("the files", () => {
  test("rows live in the mapped .f16 file; .vectors holds 8 bytes a vector; a reopened index reads no row", () => {
    const file = join(dir, "layout", "index.usearch");
    const index = filled(2000, { file, exactThreshold: 100 });
    index.flush();
    index.save();
    index.close();
    // Plus the vectors' sum (f64) and the graph's centre (f32): 12 bytes a dimension.
    expect(statSync(`${file}.vectors`).size).toBe(32 + 2000 * 8 + DIMS * 12);
    expect(statSync(`${file}.f16`).size).toBeGreaterThanOrEqual(2000 * DIMS * 2);
    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.size).toBe(2000);
    expect(reopened.pending).toBe(0);
    for (const i of [0, 1000, 1999]) expect(reopened.search(vectors[i]!, 1)[0]!.id).toBe(syntheticId(i));
    reopened.close();
  });

  test("a mapped graph is extended after a reopen: new vectors added, a removed one gone", () => {
    const file = join(dir, "extend", "index.usearch");
    const index = filled(2000, { file, exactThreshold: 100 });
    index.flush();
    index.save();
    index.close();
    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.remove(syntheticId(10))).toBe(true);
    for (let i = 2000; i < 2500; i++) reopened.add(syntheticId(i), vectors[i]!);
    reopened.flush();
    expect(reopened.pending).toBe(0);
    expect(reopened.search(vectors[10]!, 1)[0]!.id).not.toBe(syntheticId(10));
    for (const i of [0, 2000, 2499]) expect(reopened.search(vectors[i]!, 1)[0]!.id).toBe(syntheticId(i));
    reopened.save();
    reopened.close();
    const again = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(again.size).toBe(2499);
    expect(again.pending).toBe(0);
    expect(again.has(syntheticId(10))).toBe(false);
    expect(again.search(vectors[2499]!, 1)[0]!.id).toBe(syntheticId(2499));
    again.close();
  });

  test("a version 2 vectors file is read: its graph kept over isotropic vectors, rebuilt once over anisotropic ones", () => {
    // Anisotropic: every vector leans toward one direction (a mean of norm ~0.7, like the static table's).
    const lean = (v: Float32Array) => v.map((x, j) => x + (j === 0 ? 0.9 : 0));
    for (const [name, vecOf, rebuilt] of [
      ["isotropic", (v: Float32Array) => v, false],
      ["anisotropic", lean, true],
    ] as const) {
      const file = join(dir, `v2-${name}`, "index.usearch");
      const index = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
      for (let i = 0; i < 2000; i++) index.add(syntheticId(i), vecOf(vectors[i]!));
      index.flush();
      index.save();
      index.close();
      writeVersion2(file);
      const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
      expect(reopened.size).toBe(2000);
      expect(reopened.pending).toBe(rebuilt ? 2000 : 0);
      for (const i of [0, 1000, 1999]) {
        expect(reopened.search(vecOf(vectors[i]!), 1)[0]!.id).toBe(syntheticId(i));
      }
      reopened.flush();
      reopened.save();
      reopened.close();
      expect(statSync(`${file}.vectors`).size).toBe(32 + 2000 * 8 + DIMS * 12);
      const again = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
      expect(again.pending).toBe(0);
      expect(again.search(vecOf(vectors[1999]!), 1)[0]!.id).toBe(syntheticId(1999));
      again.close();
    }
  });

  test("vectors replaced by ones of another mean (the model's after the table's) rebuild the graph once", () => {
    const lean = (v: Float32Array) => v.map((x, j) => x + (j === 0 ? 0.9 : 0));
    const index = filled(1500, { exactThreshold: 100 });
    index.flush();
    // 600 of 1,500 replaced: the mean moves by ~0.27, past the drift allowed.
    for (let i = 0; i < 600; i++) index.add(syntheticId(i), lean(vectors[i]!));
    expect(index.pending).toBe(600);
    // The next chunk notices: the whole graph goes back to the tail, and one chunk is rebuilt.
    index.flush(100);
    expect(index.pending).toBe(1400);
    index.flush();
    // A few more replaced: the mean barely moves, the graph stays.
    for (let i = 0; i < 10; i++) index.add(syntheticId(i), lean(vectors[i + 2000]!));
    index.flush(5);
    expect(index.pending).toBe(5);
    expect(index.search(lean(vectors[20]!), 1)[0]!.id).toBe(syntheticId(20));
    expect(index.search(vectors[1499]!, 1)[0]!.id).toBe(syntheticId(1499));
    index.close();
  });

  test("a version 1 vectors file (float32 rows) is converted on open: every vector kept, its graph rebuilt from the tail", () => {
    const file = join(dir, "v1", "index.usearch");
    rmSync(join(dir, "v1"), { recursive: true, force: true });
    filled(1, { file }).close();
    writeVersion1(file, 1500);
    writeFileSync(file, "a graph of the old layout");
    const index = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(index.size).toBe(1500);
    expect(index.pending).toBe(1500);
    for (const i of [0, 700, 1499])
      expect(index.search(vectors[i]!, 1)[0]).toMatchObject({ id: syntheticId(i) });
    // Converted once: the file is of the new layout, the old graph replaced by an empty one.
    expect(statSync(`${file}.vectors`).size).toBe(32 + 1500 * 8 + DIMS * 12);
    expect(readFileSync(file).toString()).not.toBe("a graph of the old layout");
    index.flush();
    index.save();
    index.close();
    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.pending).toBe(0);
    expect(reopened.search(vectors[700]!, 1)[0]!.id).toBe(syntheticId(700));
    reopened.close();
  });

  test("a saved row changed in place drops .vectors until the next save (a crash meanwhile is refused, not misread)", () => {
    const file = join(dir, "inplace", "index.usearch");
    const index = filled(500, { file, exactThreshold: 100 });
    index.flush();
    index.save();
    index.add(syntheticId(600), vectors[600]!);
    // Appending past the saved rows leaves the file as it was.
    expect(existsSync(`${file}.vectors`)).toBe(true);
    index.remove(syntheticId(3));
    expect(existsSync(`${file}.vectors`)).toBe(false);
    expect(() => VectorIndex.open({ file, dims: DIMS })).toThrow(VectorIndexUnreadable);
    index.save();
    index.close();
    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.size).toBe(500);
    expect(reopened.has(syntheticId(3))).toBe(false);
    expect(reopened.search(vectors[600]!, 1)[0]!.id).toBe(syntheticId(600));
    reopened.close();
  });

  test("a rows file cut short is refused", () => {
    const file = join(dir, "short", "index.usearch");
    const index = filled(500, { file });
    index.save();
    index.close();
    truncateSync(`${file}.f16`, 100 * DIMS * 2);
    expect(() => VectorIndex.open({ file, dims: DIMS })).toThrow(VectorIndexUnreadable);
  });
});

/** Rewrites `file`'s `.vectors` (version 3) as version 2: no sum nor centre after the norms. */
function writeVersion2(file: string): void {
  const bytes = readFileSync(`${file}.vectors`);
  const v2 = bytes.subarray(0, bytes.length - DIMS * 12);
  new DataView(v2.buffer, v2.byteOffset).setUint32(4, 2, true);
  writeFileSync(`${file}.vectors`, v2);
}
