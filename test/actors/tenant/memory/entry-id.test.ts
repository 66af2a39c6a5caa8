import { describe, expect, test } from "bun:test";
import {
  canonicalJson,
  entryId,
  type IdentityContent,
  sha8,
} from "../../../../actors/tenant/memory/entry-id.ts";

const identity: IdentityContent = {
  tenant: "01JDB2X6J3KQ5W8Z3M4N7P9R2S",
  category: "fact",
  content: "The sky is blue",
  data: { b: 1, a: { y: [3, { z: 1, x: 2 }], w: "v" } },
  valid_from: "2026-01-01T00:00:00.000Z",
};

describe("canonicalJson", () => {
  test("is independent of key order at every depth", () => {
    const a = { b: 1, a: { y: [3, { z: 1, x: 2 }], w: "v" } };
    const b = { a: { w: "v", y: [3, { x: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"w":"v","y":[3,{"x":2,"z":1}]},"b":1}');
  });

  test("keeps array order (arrays are ordered content)", () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  test("drops undefined fields, so an absent optional field equals an undefined one", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  test("keeps a data key named __proto__ as data (JSON.parse makes it an own property)", () => {
    const parsed = JSON.parse('{"__proto__":{"a":1}}');
    expect(Object.keys(parsed)).toEqual(["__proto__"]);
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"a":1}}');
    expect(canonicalJson(parsed)).not.toBe(canonicalJson(JSON.parse('{"__proto__":{"a":2}}')));
  });

  test("keeps null distinct from absent", () => {
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });
});

describe("sha8", () => {
  test("is the first 8 lower-case hex characters of the SHA-256", () => {
    // SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    expect(sha8("abc")).toBe("ba7816bf");
  });
});

describe("entryId", () => {
  test("is 8 lower-case hex and deterministic, whatever the key order of the identity", () => {
    const id = entryId(identity, () => false);
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    const reordered: IdentityContent = {
      valid_from: identity.valid_from,
      data: { a: { w: "v", y: [3, { x: 2, z: 1 }] }, b: 1 },
      content: identity.content,
      category: identity.category,
      tenant: identity.tenant,
    };
    expect(entryId(reordered, () => false)).toBe(id);
    expect(id).toBe(sha8(canonicalJson(identity)));
  });

  test("changes with each identity field", () => {
    const id = entryId(identity, () => false);
    for (const change of [
      { tenant: "01JDB2X6J3KQ5W8Z3M4N7P9R2T" },
      { category: "decision" },
      { content: "The sky is grey" },
      { data: { b: 2 } },
      { valid_from: "2026-01-01T00:00:00.001Z" },
      { source: { system: "crm" } },
    ]) {
      expect(entryId({ ...identity, ...change }, () => false)).not.toBe(id);
    }
  });

  test("a forced collision yields the deterministic next candidate (hash of canonical#1)", () => {
    const canonical = canonicalJson(identity);
    const calls: string[] = [];
    // Injected hash: every first candidate collides on the same value.
    const hash = (text: string) => {
      calls.push(text);
      return text === canonical ? "deadbeef" : sha8(text);
    };
    const taken = (id: string) => id === "deadbeef";
    const id = entryId(identity, taken, hash);
    expect(id).toBe(sha8(`${canonical}#1`));
    expect(calls).toEqual([canonical, `${canonical}#1`]);
    // Same inputs, same answer: a replay of the same writes yields the same ids.
    expect(entryId(identity, taken, hash)).toBe(id);
  });

  test("walks further when the next candidates are taken too", () => {
    const canonical = canonicalJson(identity);
    const taken = new Set([sha8(canonical), sha8(`${canonical}#1`), sha8(`${canonical}#2`)]);
    expect(entryId(identity, (id) => taken.has(id))).toBe(sha8(`${canonical}#3`));
  });

  test("an id taken by the same entry is not a collision (taken answers for *other* entries only)", () => {
    const existing = new Map<string, IdentityContent>([[sha8(canonicalJson(identity)), identity]]);
    const takenByOther = (candidate: IdentityContent) => (id: string) => {
      const held = existing.get(id);
      return held !== undefined && canonicalJson(held) !== canonicalJson(candidate);
    };
    // Same content: same id (the caller then answers 200 with the existing entry).
    expect(entryId(identity, takenByOther(identity))).toBe(sha8(canonicalJson(identity)));
    // A different entry whose first candidate is held by `identity`: it moves on.
    const other: IdentityContent = { ...identity, content: "other" };
    const collidingHash = (text: string) =>
      text === canonicalJson(other) ? sha8(canonicalJson(identity)) : sha8(text);
    expect(entryId(other, takenByOther(other), collidingHash)).toBe(sha8(`${canonicalJson(other)}#1`));
  });

  test("gives up rather than looping forever when every candidate is taken", () => {
    expect(() => entryId(identity, () => true)).toThrow(/exhausted/);
  });
});
