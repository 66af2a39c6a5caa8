import { describe, expect, test } from "bun:test";
import { desiredOwner, fnv1a32, PARTITIONS, partitionOf } from "../../src/cluster/partition.ts";

describe("partitions and rendezvous hashing", () => {
  test("FNV-1a 32 matches its published test vectors", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  test("a tenant's partition is stable and within 0..63", () => {
    const tenant = "01JAAAAAAAAAAAAAAAAAAAAAAA";
    expect(partitionOf(tenant)).toBe(fnv1a32(tenant) % 64);
    expect(partitionOf(tenant)).toBeGreaterThanOrEqual(0);
    expect(partitionOf(tenant)).toBeLessThan(PARTITIONS);
  });

  test("every node computes the same owner whatever the order it lists the nodes in", () => {
    for (let p = 0; p < PARTITIONS; p++)
      expect(desiredOwner(p, ["n1", "n2", "n3"])).toBe(desiredOwner(p, ["n3", "n1", "n2"]) as string);
  });

  test("a node leaving moves only the partitions it held, and each goes to one survivor", () => {
    const before = Array.from({ length: PARTITIONS }, (_, p) => desiredOwner(p, ["n1", "n2", "n3"]));
    const after = Array.from({ length: PARTITIONS }, (_, p) => desiredOwner(p, ["n1", "n3"]));
    for (let p = 0; p < PARTITIONS; p++) {
      if (before[p] !== "n2") expect(after[p]).toBe(before[p] as string);
      else expect(["n1", "n3"]).toContain(after[p] as string);
    }
    // Spread: with three nodes each holds a fair share (no node gets fewer than 10 of 64).
    for (const node of ["n1", "n2", "n3"])
      expect(before.filter((o) => o === node).length).toBeGreaterThan(10);
  });

  test("no live node, no owner", () => {
    expect(desiredOwner(3, [])).toBeUndefined();
  });
});
