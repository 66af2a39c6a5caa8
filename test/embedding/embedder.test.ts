import { describe, expect, test } from "bun:test";
import { createEmbedder } from "../../src/embedding/create-embedder.ts";
import { toVector } from "../../src/embedding/embedder.ts";
import { ValidationFailed } from "../../src/errors/domain-errors.ts";

function validationError(fn: () => unknown): ValidationFailed {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    return err as ValidationFailed;
  }
  throw new Error("expected a ValidationFailed");
}

describe("toVector", () => {
  test("returns a unit Float32Array of the same direction", () => {
    const vec = toVector([3, 0, 4], 3);
    expect(vec).toBeInstanceOf(Float32Array);
    expect(Array.from(vec)).toEqual([Math.fround(0.6), 0, Math.fround(0.8)]);
  });

  test("a wrong length is a 422 naming the field embedding", () => {
    const err = validationError(() => toVector([1, 2], 3));
    expect(err.status).toBe(422);
    expect(err.code).toBe("validation_failed");
    expect(err.message).toContain("embedding");
    expect(err.message).toContain("expected 3");
    expect(err.errors?.[0]?.path).toBe("/embedding");
  });

  test("non-finite values are rejected, including doubles too large for float32", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1e300]) {
      const err = validationError(() => toVector([1, bad, 0], 3));
      expect(err.message).toContain("element 1");
    }
    validationError(() => toVector([1, "2" as unknown as number, 0], 3));
  });

  test("an all-zero vector has no direction and is rejected", () => {
    expect(validationError(() => toVector([0, 0, 0], 3)).message).toContain("all zeros");
  });
});

describe("createEmbedder", () => {
  test("builds the configured kind with its dims", async () => {
    const hash = createEmbedder({ kind: "hash", dims: 384 });
    expect(hash.kind).toBe("hash");
    expect((await hash.embed(["x"]))[0]).toHaveLength(384);
    expect(createEmbedder({ kind: "client", dims: 8 }).dims).toBe(8);
    const http = createEmbedder({ kind: "http", dims: 16, url: "http://127.0.0.1:9" });
    expect(http.kind).toBe("http");
    expect(http.dims).toBe(16);
  });

  test("the http embedder needs a url", () => {
    expect(() => createEmbedder({ kind: "http", dims: 16 })).toThrow("url");
  });
});
