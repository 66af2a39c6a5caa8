import { describe, expect, test } from "bun:test";
import { concatBytes } from "../../src/runtime/bytes.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("concatBytes", () => {
  test("joins chunks in order, counting their size when not given", () => {
    expect(concatBytes([bytes(1, 2), bytes(), bytes(3)])).toEqual(bytes(1, 2, 3));
    expect(concatBytes([bytes(1), bytes(2, 3)], 3)).toEqual(bytes(1, 2, 3));
  });

  test("answers one chunk as it is, and no chunk as an empty array", () => {
    const only = bytes(7, 8);
    expect(concatBytes([only])).toBe(only);
    expect(concatBytes([])).toEqual(bytes());
  });

  test("reads chunks that are views into a larger buffer from their own offset", () => {
    const whole = bytes(0, 1, 2, 3, 4, 5);
    expect(concatBytes([whole.subarray(1, 3), whole.subarray(4)])).toEqual(bytes(1, 2, 4, 5));
  });
});
