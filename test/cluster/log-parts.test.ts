/** Large changelog records in parts (src/cluster/fence.ts): joined only when every part is there, in order. */
import { describe, expect, test } from "bun:test";
import { Reassembly } from "../../src/cluster/fence.ts";

function parts(record: object, count: number) {
  const bytes = Buffer.from(JSON.stringify(record), "utf8");
  const size = Math.ceil(bytes.length / count);
  return Array.from({ length: count }, (_, part) => ({
    type: "part",
    part,
    parts: count,
    data: bytes.subarray(part * size, (part + 1) * size).toString("base64"),
  }));
}

describe("changelog record parts", () => {
  const record = {
    type: "write",
    node: "n1",
    epoch: 7,
    tenant_id: "t",
    set: { text: 'é ✓ \\u0000 "quoted"' },
  };

  test("a whole record passes through; parts give the record once, at the last part", () => {
    const reassembly = new Reassembly();
    expect(reassembly.add({ type: "claim" })).toEqual({ type: "claim" } as never);
    const [a, b, c] = parts(record, 3);
    expect(reassembly.add(a!)).toBeUndefined();
    expect(reassembly.add(b!)).toBeUndefined();
    expect(reassembly.add(c!)).toEqual(record as never);
  });

  test("a record cut short (its writer fenced mid-way) is dropped; the next one is whole", () => {
    const reassembly = new Reassembly();
    const [a, b] = parts(record, 3);
    expect(reassembly.add(a!)).toBeUndefined();
    expect(reassembly.add(b!)).toBeUndefined();
    // The new owner's claim follows the unfinished parts.
    expect(reassembly.add({ type: "claim" })).toEqual({ type: "claim" } as never);
    const again = parts(record, 2);
    expect(reassembly.add(again[1]!)).toBeUndefined();
    expect(reassembly.add(again[0]!)).toBeUndefined();
    expect(reassembly.add(again[1]!)).toEqual(record as never);
  });
});
