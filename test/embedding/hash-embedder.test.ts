import { describe, expect, test } from "bun:test";
import { HASH_EMBEDDER_DIMS, HashEmbedder } from "../../src/embedding/hash-embedder.ts";

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

describe("HashEmbedder", () => {
  const embedder = new HashEmbedder();

  test("has 384 dimensions by default and honours other sizes", async () => {
    expect(embedder.dims).toBe(HASH_EMBEDDER_DIMS);
    expect(HASH_EMBEDDER_DIMS).toBe(384);
    expect(embedder.embedSync("hello world")).toHaveLength(384);
    const [small] = await new HashEmbedder(64).embed(["hello world"]);
    expect(small).toHaveLength(64);
    expect(() => new HashEmbedder(0)).toThrow();
  });

  test("is deterministic across calls and instances", () => {
    const text = "Customer asked for a refund on invoice 1042";
    const a = embedder.embedSync(text);
    expect(Array.from(new HashEmbedder().embedSync(text))).toEqual(Array.from(a));
    expect(Array.from(embedder.embedSync(text))).toEqual(Array.from(a));
  });

  test("returns unit vectors", () => {
    for (const text of ["a", "refund approved for the enterprise plan", "x ".repeat(500)]) {
      expect(norm(embedder.embedSync(text))).toBeCloseTo(1, 5);
    }
  });

  test("text without words embeds to the zero vector", () => {
    for (const text of ["", "   ", "?!… 🙂"]) {
      const vec = embedder.embedSync(text);
      expect(vec).toHaveLength(384);
      expect(vec.every((x) => x === 0)).toBe(true);
    }
  });

  test("similar texts are closer than unrelated ones", () => {
    const base = embedder.embedSync("the customer requested a refund for the damaged shipment");
    const similar = embedder.embedSync("customer requested refund because the shipment was damaged");
    const unrelated = embedder.embedSync("quarterly hiring plan for the berlin engineering office");
    expect(cosine(base, similar)).toBeGreaterThan(0.5);
    expect(cosine(base, similar)).toBeGreaterThan(cosine(base, unrelated) + 0.3);
  });

  test("case, punctuation and Unicode forms do not change the vector", () => {
    const a = embedder.embedSync("Refund APPROVED, café");
    const b = embedder.embedSync("refund approved cafe\u0301");
    expect(cosine(a, b)).toBeCloseTo(1, 6);
  });

  test("bigrams make word order count a little", () => {
    const a = embedder.embedSync("open the deal review");
    const b = embedder.embedSync("review the deal open");
    expect(cosine(a, b)).toBeLessThan(0.99);
    expect(cosine(a, b)).toBeGreaterThan(0.5);
  });

  test("embed maps each text to its embedSync vector, in order", async () => {
    const texts = ["first note", "second note", ""];
    const vectors = await embedder.embed(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => Array.from(embedder.embedSync(t))));
  });
});
