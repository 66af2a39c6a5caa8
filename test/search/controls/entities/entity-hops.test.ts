import { describe, expect, test } from "bun:test";
import {
  type EntityLinks,
  HOP1_BOOST,
  HOP2_BOOST,
  hopOne,
  searchWithEntities,
} from "../../../../src/search/controls/entities/entity-hops.ts";
import type { FusedHit } from "../../../../src/search/fusion/hybrid.ts";

/** The entity hops over a small fake index: what is followed, how far, and what it adds. */

/** entity → its entries; `size` entries in all (ids e0…). */
function linksOf(entities: Record<string, string[]>, size: number): EntityLinks {
  const ofEntry = new Map<string, string[]>();
  for (const [key, ids] of Object.entries(entities))
    for (const id of ids) ofEntry.set(id, [...(ofEntry.get(id) ?? []), key]);
  return {
    size,
    ofQuery: (text) => Object.keys(entities).filter((key) => text.toLowerCase().includes(key)),
    entriesOf: (key) => entities[key] ?? [],
    entitiesOf: (id) => ofEntry.get(id) ?? [],
    frequency: (key) => entities[key]?.length ?? 0,
  };
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const hit = (id: string, score: number): FusedHit => ({ id, score, scores: { vector: 0, lexical: score } });

describe("hop 1", () => {
  test("an entity in more than a tenth of the entries is not followed; rarer ones are, newest first", () => {
    const links = linksOf({ soren: ids("s", 300), noodle: ids("n", 5) }, 1000);
    const one = hopOne(links, "what did soren's noodle learn", () => true);
    expect([...one.weights.keys()]).toEqual(["noodle"]);
    expect(one.candidates).toEqual(["n4", "n3", "n2", "n1", "n0"]);
  });

  test("at most 64 entries an entity, 128 in all, and only those the filter accepts", () => {
    const links = linksOf({ a: ids("a", 100), b: ids("b", 100), c: ids("c", 100) }, 10_000);
    const one = hopOne(links, "a b c", (id) => !id.endsWith("9"));
    expect(one.candidates).toHaveLength(128);
    expect(one.candidates.filter((id) => id.startsWith("a"))).toHaveLength(64);
    expect(one.candidates.some((id) => id.endsWith("9"))).toBe(false);
  });
});

describe("both hops", () => {
  test("the entries of a bridge the best result names are pulled in and boosted, scores in [0, 1]", () => {
    const links = linksOf({ husky: ["h1", "h2"], noodle: ["h1", "t1"] }, 1000);
    const asked: string[][] = [];
    const run = (extra: readonly string[]) => {
      asked.push([...extra]);
      const base = [hit("h1", 1), hit("x1", 0.5), hit("h2", 0.3)];
      return extra.includes("t1") ? [...base, hit("t1", 0.2)] : base;
    };
    const ranked = searchWithEntities(links, "what did the husky learn", () => true, run);
    // Hop 1 proposed the husky's entries; hop 2 searched again with Noodle's.
    expect(asked).toEqual([
      ["h2", "h1"],
      ["h2", "h1", "t1"],
    ]);
    const t1 = ranked.find((h) => h.id === "t1")!;
    expect(t1.linked).toMatchObject({ entities: ["noodle"], hop: 2 });
    expect(t1.score).toBeGreaterThan(0.2);
    expect(t1.score).toBeLessThanOrEqual(0.2 + HOP2_BOOST);
    const h1 = ranked.find((h) => h.id === "h1")!;
    expect(h1.linked?.hop).toBe(1);
    for (const h of ranked) expect(h.score).toBeLessThanOrEqual(1);
    expect(HOP1_BOOST).toBeLessThan(HOP2_BOOST);
  });

  test("a query naming no entity ranks as the fused search did, in one search", () => {
    const links = linksOf({ husky: ["h1"] }, 1000);
    let searches = 0;
    const base = [hit("a", 0.9), hit("b", 0.4)];
    const ranked = searchWithEntities(
      links,
      "nothing named here",
      () => true,
      () => {
        searches++;
        return base;
      },
    );
    expect(ranked).toEqual(base);
    expect(searches).toBe(1);
  });
});
