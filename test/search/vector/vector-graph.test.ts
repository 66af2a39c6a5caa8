import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VectorGraph } from "../../../src/search/vector/vector-graph.ts";
import { VectorIndexUnreadable } from "../../../src/search/vector/vector-index.ts";
import { filesOpenUnder } from "../../helpers/open-descriptors.ts";

const dir = mkdtempSync(join(tmpdir(), "vector-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shape = { dims: 8, connectivity: 16, expansionAdd: 64, expansionSearch: 64 };

/** What descriptor 0 of this process refers to (usearch closes it when a view cannot open its file). */
const stdinLink = () => readlinkSync("/proc/self/fd/0");

describe("VectorGraph", () => {
  test("a missing or empty graph file is refused before usearch can close another file's descriptor", () => {
    const before = stdinLink();
    const empty = join(dir, "empty.usearch");
    writeFileSync(empty, "");
    for (const file of [empty, join(dir, "missing.usearch")]) {
      expect(() => new VectorGraph(shape).view(file)).toThrow(VectorIndexUnreadable);
    }
    expect(stdinLink()).toBe(before);
  });

  test("cleared after a view, the graph holds no descriptor of its file and takes new vectors", () => {
    const file = join(dir, "saved.usearch");
    const saved = new VectorGraph(shape);
    saved.add(new BigUint64Array([1n, 2n]), new Int8Array(16).fill(3), 1);
    saved.save(file);
    const graph = new VectorGraph(shape);
    graph.view(file);
    expect(graph.size).toBe(2);
    expect(filesOpenUnder(dir)).toEqual([file]);
    graph.clear();
    expect(graph.size).toBe(0);
    graph.add(new BigUint64Array([3n]), new Int8Array(8).fill(1), 1);
    expect([...graph.search(new Int8Array(8).fill(1), 1)]).toEqual([3n]);
    expect(filesOpenUnder(dir)).toEqual([]);
  });
});
