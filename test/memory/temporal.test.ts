import { describe, expect, test } from "bun:test";
import { type StoredEntry, validAt, viewAsOf, visible } from "../../src/memory/temporal.ts";
import type { Entry } from "../../src/models/entry.ts";

const T = (s: string) => Date.parse(`2026-01-01T${s}Z`);
const iso = (s: string) => new Date(T(s)).toISOString();

function entry(over: Partial<Entry> = {}): Entry {
  return {
    id: "aaaaaaaa",
    tenant_id: "01JDB2X6J3KQ5W8Z3M4N7P9R2S",
    category: "fact",
    content: "x",
    agent_id: "a",
    valid_from: iso("01:00:00"),
    valid_to: null,
    recorded_at: iso("02:00:00"),
    expired_at: null,
    invalidated_at: null,
    created_by: "a",
    ...over,
  } as Entry;
}

describe("viewAsOf (transaction time)", () => {
  const plain: StoredEntry = { seq: 1, entry: entry() };
  const corrected: StoredEntry = { seq: 1, entry: entry({ expired_at: iso("04:00:00") }) };
  const superseded: StoredEntry = {
    seq: 1,
    entry: entry({ valid_to: iso("03:00:00"), invalidated_at: iso("05:00:00") }),
    prior_valid_to: null,
  };
  const supersededBounded: StoredEntry = {
    seq: 1,
    entry: entry({ valid_to: iso("03:00:00"), invalidated_at: iso("05:00:00") }),
    prior_valid_to: iso("09:00:00"),
  };

  const cases: Array<{
    name: string;
    stored: StoredEntry;
    asOf: string;
    expect: Partial<Entry> | undefined;
  }> = [
    { name: "before it was recorded: unknown", stored: plain, asOf: "01:59:59.999", expect: undefined },
    { name: "exactly when recorded: known", stored: plain, asOf: "02:00:00", expect: { expired_at: null } },
    { name: "after it was recorded: known", stored: plain, asOf: "10:00:00", expect: { valid_to: null } },
    {
      name: "corrected, before the correction: known, not expired",
      stored: corrected,
      asOf: "03:59:59.999",
      expect: { expired_at: null },
    },
    { name: "corrected, at the correction: gone", stored: corrected, asOf: "04:00:00", expect: undefined },
    { name: "corrected, after the correction: gone", stored: corrected, asOf: "10:00:00", expect: undefined },
    {
      name: "superseded, before the supersession was recorded: open valid_to",
      stored: superseded,
      asOf: "04:59:59.999",
      expect: { valid_to: null, invalidated_at: null },
    },
    {
      name: "superseded, after: valid_to set",
      stored: superseded,
      asOf: "05:00:00",
      expect: { valid_to: iso("03:00:00"), invalidated_at: iso("05:00:00") },
    },
    {
      name: "superseded, before: the prior bounded valid_to comes back",
      stored: supersededBounded,
      asOf: "04:00:00",
      expect: { valid_to: iso("09:00:00"), invalidated_at: null },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const view = viewAsOf(c.stored, T(c.asOf));
      if (c.expect === undefined) expect(view).toBeUndefined();
      else expect(view).toMatchObject(c.expect);
    });
  }

  test("never mutates the stored entry", () => {
    const before = structuredClone(superseded);
    viewAsOf(superseded, T("04:00:00"));
    viewAsOf(corrected, T("03:00:00"));
    expect(superseded).toEqual(before);
    expect(corrected.entry.expired_at).toBe(iso("04:00:00"));
  });
});

describe("validAt (valid time)", () => {
  const bounded = entry({ valid_from: iso("01:00:00"), valid_to: iso("03:00:00") });
  const open = entry({ valid_from: iso("01:00:00"), valid_to: null });
  const cases: Array<[string, Entry, string, boolean]> = [
    ["before valid_from", bounded, "00:59:59.999", false],
    ["at valid_from (inclusive)", bounded, "01:00:00", true],
    ["inside", bounded, "02:00:00", true],
    ["at valid_to (exclusive)", bounded, "03:00:00", false],
    ["after valid_to", bounded, "04:00:00", false],
    ["open valid_to: forever", open, "23:59:59", true],
    ["open valid_to, before valid_from", open, "00:00:00", false],
  ];
  for (const [name, e, at, want] of cases) {
    test(name, () => expect(validAt(e, T(at))).toBe(want));
  }
});

describe("visible (both coordinates)", () => {
  // Superseded at valid 03:00, the supersession recorded at 05:00.
  const stored: StoredEntry = {
    seq: 1,
    entry: entry({ valid_to: iso("03:00:00"), invalidated_at: iso("05:00:00") }),
    prior_valid_to: null,
  };
  const cases: Array<[string, string, boolean]> = [
    // [asOf, validAt, visible]
    ["10:00:00", "02:00:00", true],
    ["10:00:00", "04:00:00", false],
    // As known before the supersession, it is still valid at 04:00.
    ["04:00:00", "04:00:00", true],
    // Not yet recorded.
    ["01:30:00", "01:30:00", false],
    // Not yet valid.
    ["10:00:00", "00:30:00", false],
  ];
  for (const [asOf, at, want] of cases) {
    test(`as_of ${asOf}, valid_at ${at} → ${want ? "visible" : "hidden"}`, () => {
      expect(visible(stored, { asOf: T(asOf), validAt: T(at) }) !== undefined).toBe(want);
    });
  }
});
