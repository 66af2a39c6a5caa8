/**
 * The vector `tiered` upgrades an entry to (tiered-embedder.ts): the model's plus TABLE_SHARE of
 * the table's, unit length, so it stays nearest the model's and leans toward the table's queries.
 */
import { describe, expect, test } from "bun:test";
import { TABLE_SHARE, upgradedVector } from "../../src/embedding/tiered-embedder.ts";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const axis = (i: number, dims = 4) => Float32Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0));

describe("upgradedVector", () => {
  test("is unit length and weighs the model's vector above the table's by 1 to TABLE_SHARE", () => {
    const v = upgradedVector(axis(0), axis(1));
    expect(dot(v, v)).toBeCloseTo(1, 6);
    expect(v[1]! / v[0]!).toBeCloseTo(TABLE_SHARE, 6);
    expect(dot(v, axis(0))).toBeGreaterThan(dot(v, axis(1)));
  });

  test("equals the model's vector when both tiers agree", () => {
    const v = upgradedVector(axis(2), axis(2));
    expect([...v]).toEqual([...axis(2)]);
  });

  test("keeps the model's vector when the blend has no direction", () => {
    const model = new Float32Array(4);
    const table = new Float32Array(4);
    expect(upgradedVector(model, table)).toBe(model);
  });

  test("does not change its arguments", () => {
    const model = axis(0);
    const table = axis(3);
    upgradedVector(model, table);
    expect([...model]).toEqual([...axis(0)]);
    expect([...table]).toEqual([...axis(3)]);
  });
});
