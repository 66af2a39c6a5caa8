import { describe, expect, test } from "bun:test";
import type { StoredEntry } from "../../src/memory/temporal.ts";
import { visible } from "../../src/memory/temporal.ts";
import type { Entry } from "../../src/models/entry.ts";
import { entryRow } from "../../src/vault/entry-rows.ts";
import { EntrySummary, type SummaryFilter } from "../../src/vault/entry-summary.ts";
import { IdSlots } from "../../src/vault/id-slots.ts";

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;

function stored(seq: number, over: Partial<Entry> = {}, prior?: string | null): StoredEntry {
  const s: StoredEntry = {
    seq,
    entry: {
      id: seq.toString(16).padStart(8, "0"),
      tenant_id: "t",
      category: "fact",
      content: `entry ${seq}`,
      tags: [],
      valid_from: iso(T0),
      valid_to: null,
      agent_id: "a",
      recorded_at: iso(T0),
      expired_at: null,
      invalidated_at: null,
      created_by: "a",
      origin: { kind: "agent", sub: "a" },
      trust: "agent",
      ...over,
    },
  };
  if (prior !== undefined) s.prior_valid_to = prior;
  return s;
}

function summaryOf(entries: StoredEntry[]): EntrySummary {
  const summary = new EntrySummary();
  for (const s of entries) summary.upsert(s.seq, entryRow(s));
  return summary;
}

const filter = (over: Partial<SummaryFilter> = {}): SummaryFilter => ({
  categories: ["fact", "decision"],
  asOf: T0 + 10 * DAY,
  validAt: T0 + 10 * DAY,
  ...over,
});

describe("EntrySummary", () => {
  test("the visibility filter agrees with decoding the entry, on both time axes", () => {
    const entries = [
      stored(1),
      stored(2, { recorded_at: iso(T0 + 20 * DAY) }),
      stored(3, { expired_at: iso(T0 + 5 * DAY) }),
      stored(4, { expired_at: iso(T0 + 15 * DAY) }),
      // Superseded at day 8, valid until day 6 since; before day 8 it was open-ended.
      stored(5, { valid_to: iso(T0 + 6 * DAY), invalidated_at: iso(T0 + 8 * DAY) }, null),
      stored(6, { valid_from: iso(T0 + 11 * DAY) }),
      stored(7, { valid_to: iso(T0 + 3 * DAY) }),
      stored(8, { category: "workflow" }),
    ];
    const summary = summaryOf(entries);
    for (const asOf of [T0 - 1, T0, T0 + 5 * DAY, T0 + 7 * DAY, T0 + 9 * DAY, T0 + 30 * DAY])
      for (const validAt of [T0 - 1, T0 + 2 * DAY, T0 + 7 * DAY, T0 + 12 * DAY]) {
        const f = filter({ asOf, validAt });
        for (const s of entries) {
          const want = s.entry.category !== "workflow" && visible(s, { asOf, validAt }) !== undefined;
          expect([s.entry.id, asOf, validAt, summary.accepts(s.entry.id, f)]).toEqual([
            s.entry.id,
            asOf,
            validAt,
            want,
          ]);
        }
      }
  });

  test("tags: every one of `tags`, at least one of `tagsAny`", () => {
    const summary = summaryOf([
      stored(1, { tags: ["a", "b"] }),
      stored(2, { tags: ["a"] }),
      stored(3, { tags: ["c"] }),
    ]);
    const ids = (f: SummaryFilter) =>
      ["00000001", "00000002", "00000003"].filter((id) => summary.accepts(id, f));
    expect(ids(filter({ tags: ["a"] }))).toEqual(["00000001", "00000002"]);
    expect(ids(filter({ tags: ["a", "b"] }))).toEqual(["00000001"]);
    expect(ids(filter({ tagsAny: ["b", "c"] }))).toEqual(["00000001", "00000003"]);
    expect(ids(filter({ tags: ["nowhere"] }))).toEqual([]);
  });

  test("scans newest first below `before`, by category and by tag; erased entries are gone", () => {
    const summary = summaryOf([
      stored(1, { tags: ["x"] }),
      stored(2, { category: "decision" }),
      stored(3, { tags: ["x"] }),
      stored(4),
    ]);
    expect([...summary.newest(summary.inCategory("fact"))]).toEqual(["00000004", "00000003", "00000001"]);
    expect([...summary.newest(summary.inCategory("fact"), 4)]).toEqual(["00000003", "00000001"]);
    expect([...summary.newest(summary.withTag("x"))]).toEqual(["00000003", "00000001"]);
    summary.remove("00000003");
    expect([...summary.newest(summary.withTag("x"))]).toEqual(["00000001"]);
    expect(summary.count()).toBe(3);
    expect(summary.has("00000003")).toBe(false);
  });

  test("an update replaces the row in place; a row below the newest sequence keeps the order", () => {
    const summary = summaryOf([stored(2), stored(5)]);
    summary.upsert(2, entryRow(stored(2, { expired_at: iso(T0) })));
    expect(summary.accepts("00000002", filter())).toBe(false);
    summary.upsert(3, entryRow(stored(3, { tags: ["late"] })));
    expect([...summary.newest(() => true)]).toEqual(["00000005", "00000003", "00000002"]);
    expect([...summary.newest(summary.withTag("late"))]).toEqual(["00000003"]);
    expect(summary.accepts("00000002", filter())).toBe(false);
  });

  test("valid-time ranges come in valid-time order", () => {
    const summary = summaryOf([
      stored(1, { valid_from: iso(T0 + 3 * DAY) }),
      stored(2, { valid_from: iso(T0 + 1 * DAY) }),
      stored(3, { valid_from: iso(T0 + 9 * DAY) }),
    ]);
    expect(summary.validIn(T0, T0 + 5 * DAY)).toEqual(["00000002", "00000001"]);
  });

  test("grows past its first capacity without losing a row", () => {
    const entries = Array.from({ length: 5000 }, (_, i) => stored(i + 1, { tags: [`t${i % 7}`] }));
    const summary = summaryOf(entries);
    expect(summary.count()).toBe(5000);
    expect([...summary.newest(summary.withTag("t3"))].length).toBe(Math.ceil((5000 - 3) / 7));
  });
});

describe("IdSlots", () => {
  test("maps ids to slots through growth and removals, and ids of another shape too", () => {
    const slots = new IdSlots();
    const ids = Array.from({ length: 3000 }, (_, i) =>
      (Math.imul(i + 1, 2654435761) >>> 0).toString(16).padStart(8, "0"),
    );
    for (const [i, id] of ids.entries()) slots.set(id, i);
    for (let i = 0; i < ids.length; i += 2) slots.remove(ids[i]!);
    for (const [i, id] of ids.entries()) expect(slots.get(id)).toBe(i % 2 === 0 ? -1 : i);
    slots.set("not-hex", 7);
    expect(slots.get("not-hex")).toBe(7);
    expect(slots.get("ffffffff")).toBe(-1);
  });
});
