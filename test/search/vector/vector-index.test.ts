import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HashEmbedder } from "../../../src/embedding/hash-embedder.ts";
import { ValidationFailed } from "../../../src/errors/domain-errors.ts";
import { searchExact, VectorIndex, VectorIndexUnreadable } from "../../../src/search/vector/vector-index.ts";
import { filesOpenUnder } from "../../helpers/open-descriptors.ts";
import { syntheticCorpus, syntheticId } from "./synthetic-corpus.ts";

const DIMS = 384;
const embedder = new HashEmbedder(DIMS);
const dir = mkdtempSync(join(tmpdir(), "vector-index-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { documents, queries } = syntheticCorpus(3000, 20, 7);
const vectors = documents.map((text) => embedder.embedSync(text));

/**
 * An index holding the first `n` corpus documents; ANN forced unless told otherwise. One
 * insertion thread makes the graph, and so every ANN result, the same on every run.
 */
function filled(n: number, opts: Partial<Parameters<typeof VectorIndex.open>[0]> = {}): VectorIndex {
  const index = VectorIndex.open({ dims: DIMS, exactThreshold: 0, threads: 1, ...opts });
  for (let i = 0; i < n; i++) index.add(syntheticId(i), vectors[i]!);
  return index;
}

function unit(values: number[]): Float32Array {
  const vec = new Float32Array(DIMS);
  vec.set(values);
  return vec;
}

describe("VectorIndex: adding and finding", () => {
  test("a new vector is found at once, before any flush, with its cosine as score", () => {
    const index = VectorIndex.open({ dims: DIMS });
    index.add("0000000a", unit([1, 0]));
    index.add("0000000b", unit([1, 1]));
    expect(index.pending).toBe(2);
    const hits = index.search(unit([2, 0]), 5);
    expect(hits.map((h) => h.id)).toEqual(["0000000a", "0000000b"]);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 5);
  });

  test("pending and flushed vectors are searched together on the ANN path", () => {
    const index = filled(2000);
    index.flush();
    expect(index.pending).toBe(0);
    index.add("ffffffff", vectors[2500]!);
    expect(index.pending).toBe(1);
    expect(index.search(vectors[2500]!, 1)[0]?.id).toBe("ffffffff");
    expect(index.search(vectors[17]!, 1)[0]).toMatchObject({ id: syntheticId(17) });
    index.flush();
    expect(index.pending).toBe(0);
    expect(index.search(vectors[2500]!, 1)[0]?.id).toBe("ffffffff");
  });

  test("every stored vector is its own nearest neighbour through the graph", () => {
    const index = filled(1500);
    index.flush();
    for (let i = 0; i < 1500; i += 50) {
      const [best] = index.search(vectors[i]!, 1);
      expect(best?.id).toBe(syntheticId(i));
      expect(best?.score).toBeCloseTo(1, 4);
    }
  });

  test("results are best first and agree with the exact scan on small indexes", () => {
    const ann = filled(1000);
    ann.flush();
    const exact = filled(1000, { exactThreshold: 10_000 });
    const query = embedder.embedSync(queries[0]!);
    const hits = exact.search(query, 10);
    const expected = searchExact(
      query,
      vectors.slice(0, 1000).map((v, i) => [syntheticId(i), v] as [string, Float32Array]),
      10,
    );
    expect(hits.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    expect(ann.search(query, 10)[0]?.id).toBe(hits[0]?.id);
  });

  test("add never inserts into the graph, however long the tail: only flush does", () => {
    const index = filled(3000);
    expect(index.pending).toBe(3000);
    expect(index.size).toBe(3000);
    index.flush(1000);
    expect(index.pending).toBe(2000);
  });

  test("re-adding an id replaces its vector", () => {
    const index = filled(300);
    index.flush();
    const id = syntheticId(3);
    index.add(id, unit([0, 0, 1]));
    expect(index.size).toBe(300);
    expect(index.search(unit([0, 0, 1]), 1)[0]).toMatchObject({ id });
    expect(index.search(vectors[3]!, 1)[0]?.id).not.toBe(id);
  });

  test("a zero vector is not stored, and a zero query finds nothing", () => {
    const index = filled(10);
    expect(index.add("00000abc", new Float32Array(DIMS))).toBe(false);
    expect(index.has("00000abc")).toBe(false);
    expect(index.size).toBe(10);
    expect(index.search(new Float32Array(DIMS), 5)).toEqual([]);
  });

  test("bad ids and wrong dimensions are validation failures", () => {
    const index = VectorIndex.open({ dims: DIMS });
    expect(() => index.add("XYZ", vectors[0]!)).toThrow(ValidationFailed);
    expect(() => index.add("0000000A", vectors[0]!)).toThrow(ValidationFailed);
    expect(() => index.add("00000001", new Float32Array(3))).toThrow(ValidationFailed);
    expect(() => index.search(new Float32Array(3), 1)).toThrow(ValidationFailed);
  });

  test("the index copies vectors: later changes to the caller's array do not leak in", () => {
    const index = VectorIndex.open({ dims: DIMS });
    const vec = unit([1, 0]);
    index.add("00000001", vec);
    vec[0] = 0;
    vec[1] = 1;
    expect(index.search(unit([1, 0]), 1)[0]?.score).toBeCloseTo(1, 5);
  });

  test("scorer gives the cosine of any stored id", () => {
    const index = filled(50);
    const query = embedder.embedSync(queries[1]!);
    const score = index.scorer(query);
    const [best] = index.search(query, 1);
    expect(score(best!.id)).toBeCloseTo(best!.score, 5);
    expect(score("12345678")).toBeUndefined();
  });
});

describe("VectorIndex: filters", () => {
  const index = filled(3000, { exactThreshold: 500 });
  index.flush();
  const query = embedder.embedSync(queries[2]!);

  test("only accepted ids come back, still the best of them", () => {
    const even = new Set(Array.from({ length: 1500 }, (_, i) => syntheticId(i * 2)));
    const hits = index.search(query, 10, (id) => even.has(id));
    expect(hits).toHaveLength(10);
    for (const hit of hits) expect(even.has(hit.id)).toBe(true);
    const exact = searchExact(
      query,
      [...even].map((id, i) => [id, vectors[i * 2]!] as [string, Float32Array]),
      10,
    );
    expect(hits[0]?.id).toBe(exact[0]?.id);
  });

  test("a very selective filter still gets its best matches (exact fallback)", () => {
    const few = [syntheticId(11), syntheticId(1234), syntheticId(2999)];
    const hits = index.search(query, 10, (id) => few.includes(id));
    expect(hits.map((h) => h.id).sort()).toEqual([...few].sort());
    const expected = searchExact(
      query,
      few.map((id) => [id, vectors[[11, 1234, 2999][few.indexOf(id)]!]!] as [string, Float32Array]),
      10,
    );
    expect(hits.map((h) => h.id)).toEqual(expected.map((h) => h.id));
  });

  test("a filter that accepts nothing finds nothing", () => {
    expect(index.search(query, 10, () => false)).toEqual([]);
  });
});

describe("VectorIndex: remove", () => {
  test("removes graph and pending vectors and keeps every other one findable", () => {
    const index = filled(400);
    index.flush();
    for (let i = 400; i < 420; i++) index.add(syntheticId(i), vectors[i]!);
    const removed = [0, 5, 399, 400, 410, 419];
    for (const i of removed) expect(index.remove(syntheticId(i))).toBe(true);
    expect(index.remove(syntheticId(0))).toBe(false);
    expect(index.size).toBe(420 - removed.length);
    expect(index.pending).toBe(20 - 3);
    for (let i = 0; i < 420; i++) {
      const id = syntheticId(i);
      const gone = removed.includes(i);
      expect(index.has(id)).toBe(!gone);
      const [best] = index.search(vectors[i]!, 1);
      if (gone) expect(best?.id).not.toBe(id);
      else expect(best?.id).toBe(id);
    }
    index.add(syntheticId(5), vectors[5]!);
    expect(index.search(vectors[5]!, 1)[0]?.id).toBe(syntheticId(5));
  });
});

describe("VectorIndex: persistence", () => {
  test("save then reopen finds the same results without re-adding anything", () => {
    const file = join(dir, "reopen", "index.usearch");
    const index = filled(2500, { file, exactThreshold: 100 });
    index.flush();
    const before = queries.map((q) => index.search(embedder.embedSync(q), 10));
    index.save();
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.vectors`)).toBe(true);
    expect(readdirSync(join(dir, "reopen")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    index.close();

    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.size).toBe(2500);
    expect(reopened.pending).toBe(0);
    expect(reopened.has(syntheticId(2499))).toBe(true);
    const after = queries.map((q) => reopened.search(embedder.embedSync(q), 10));
    expect(after).toEqual(before);
  });

  test("a missing file means a new, empty index; memory-only indexes do not write", () => {
    const file = join(dir, "fresh", "index.usearch");
    const index = VectorIndex.open({ file, dims: DIMS });
    expect(index.size).toBe(0);
    expect(index.search(vectors[0]!, 3)).toEqual([]);
    index.save();
    expect(existsSync(file)).toBe(false);
    const memory = filled(5);
    memory.save();
  });

  test("a graph older than its vectors (crash between the two renames) keeps the rest pending on open", () => {
    const file = join(dir, "crash", "index.usearch");
    const index = filled(600, { file, exactThreshold: 100 });
    index.flush();
    index.save();
    copyFileSync(file, `${file}.old`);
    for (let i = 600; i < 700; i++) index.add(syntheticId(i), vectors[i]!);
    index.flush();
    index.save();
    copyFileSync(`${file}.old`, file);

    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 100 });
    expect(reopened.size).toBe(700);
    // The 100 vectors the old graph lacks are pending: found at once (exactly), inserted by a flush.
    expect(reopened.pending).toBe(100);
    for (const i of [0, 599, 600, 650, 699])
      expect(reopened.search(vectors[i]!, 1)[0]?.id).toBe(syntheticId(i));
    reopened.flush();
    expect(reopened.pending).toBe(0);
    for (const i of [0, 599, 600, 650, 699])
      expect(reopened.search(vectors[i]!, 1)[0]?.id).toBe(syntheticId(i));
  });

  test("save keeps pending vectors pending: a shutdown never waits on graph insertion", () => {
    const file = join(dir, "pending", "index.usearch");
    const index = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 10 });
    for (let i = 0; i < 200; i++) index.add(syntheticId(i), vectors[i]!);
    index.flush(50);
    index.save();
    index.close();
    const reopened = VectorIndex.open({
      file,
      dims: DIMS,
      threads: 1,
      exactThreshold: 10,
    });
    expect(reopened.size).toBe(200);
    expect(reopened.pending).toBe(150);
    expect(reopened.search(vectors[123]!, 1)[0]?.id).toBe(syntheticId(123));
  });

  test("a graph holding vectors its vectors file lacks is rebuilt from the vectors", () => {
    const file = join(dir, "rebuild", "index.usearch");
    const index = filled(300, { file, exactThreshold: 10 });
    index.save();
    copyFileSync(file, `${file}.old`);
    index.remove(syntheticId(7));
    index.save();
    copyFileSync(`${file}.old`, file);

    const reopened = VectorIndex.open({ file, dims: DIMS, threads: 1, exactThreshold: 10 });
    expect(reopened.size).toBe(299);
    expect(reopened.has(syntheticId(7))).toBe(false);
    expect(reopened.search(vectors[7]!, 1)[0]?.id).not.toBe(syntheticId(7));
    expect(reopened.search(vectors[8]!, 1)[0]?.id).toBe(syntheticId(8));
  });

  test("unusable files are reported as VectorIndexUnreadable", () => {
    const file = join(dir, "bad", "index.usearch");
    const index = filled(20, { file });
    index.save();
    expect(() => VectorIndex.open({ file, dims: 128 })).toThrow(VectorIndexUnreadable);

    writeFileSync(`${file}.vectors`, "not a vectors file");
    expect(() => VectorIndex.open({ file, dims: DIMS })).toThrow(VectorIndexUnreadable);

    rmSync(`${file}.vectors`);
    expect(() => VectorIndex.open({ file, dims: DIMS })).toThrow(VectorIndexUnreadable);
  });

  test("a reopened index holds its rows and its mapped graph open until close, which gives both back", () => {
    const file = join(dir, "descriptors", "index.usearch");
    const saved = filled(50, { file });
    saved.flush();
    saved.save();
    saved.close();
    expect(filesOpenUnder(join(dir, "descriptors"))).toEqual([]);

    // The rows file and the viewed graph: two of the descriptors an open tenant counts (open-files.ts).
    const viewed = VectorIndex.open({ file, dims: DIMS, threads: 1 });
    expect(filesOpenUnder(join(dir, "descriptors"))).toEqual([file, `${file}.f16`]);
    viewed.close();
    expect(filesOpenUnder(join(dir, "descriptors"))).toEqual([]);

    // The first change after a reopen loads the graph into memory: the view's file is closed then.
    const changed = VectorIndex.open({ file, dims: DIMS, threads: 1 });
    changed.remove(syntheticId(0));
    changed.add(syntheticId(0), vectors[0]!);
    changed.flush();
    expect(filesOpenUnder(join(dir, "descriptors"))).toEqual([`${file}.f16`]);
    changed.close();
    expect(filesOpenUnder(join(dir, "descriptors"))).toEqual([]);
  });

  test("a closed index refuses further use", () => {
    const index = filled(3);
    index.close();
    expect(() => index.search(vectors[0]!, 1)).toThrow("closed");
  });
});

describe("searchExact", () => {
  test("ranks candidates by cosine, normalising them, skipping zero vectors, ties by id", () => {
    const hits = searchExact(
      unit([1, 0]),
      [
        ["b", unit([5, 5])],
        ["a", unit([5, 5])],
        ["z", new Float32Array(DIMS)],
        ["c", unit([3, 0])],
        ["d", unit([-1, 0])],
      ],
      3,
    );
    expect(hits.map((h) => h.id)).toEqual(["c", "a", "b"]);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    expect(hits[1]!.score).toBeCloseTo(Math.SQRT1_2, 6);
  });
});
