/**
 * The history slice's handlers as pure logic over fake reads: an entry's versions come from its
 * own `supersedes`/`corrects` backwards and the change log forwards, its events are ordered by
 * time (creation first among equals), an erased version is its tombstone, and an entry of another
 * category is not found.
 */
import { describe, expect, test } from "bun:test";
import { type HistoryReads, historyHandlers } from "../../../../actors/tenant/history/history.ts";
import { NotFound } from "../../../../src/errors/domain-errors.ts";
import type { Category } from "../../../../src/models/category.ts";
import type { Change } from "../../../../src/models/change.ts";
import type { EntryHistory } from "../../../../src/models/history.ts";
import type { Tombstone } from "../../../../src/vault/write-set.ts";

type FakeEntry = { id: string; category: string; recorded_at: string; created_by: string } & Record<
  string,
  unknown
>;

function fact(id: string, at: string, fields: Record<string, unknown> = {}): FakeEntry {
  return {
    id,
    category: "fact",
    recorded_at: at,
    created_by: "agent-1",
    valid_from: at,
    valid_to: null,
    expired_at: null,
    ...fields,
  };
}

let seq = 0;
function change(type: Change["type"], id: string, at: string, related?: string): Change {
  return { seq: ++seq, at, type, id, category: "fact", by: "agent-2", ...(related ? { related } : {}) };
}

function reads(entries: FakeEntry[], changes: Change[], tombstones: Tombstone[] = []): HistoryReads {
  const byId = new Map(entries.map((e) => [e.id, { entry: e }]));
  return {
    entries: { get: (id: string) => byId.get(id) },
    tombstones: { of: (id: string) => tombstones.find((t) => t.id === id) },
    changes: {
      of: (id: string) => changes.filter((c) => c.id === id),
      since: (after: number, limit: number) => changes.filter((c) => c.seq > after).slice(0, limit),
      last: () => changes.at(-1)?.seq ?? 0,
    },
  } as unknown as HistoryReads;
}

/** The handler's answer (synchronous: history reads only). */
function historyOf(from: HistoryReads, category: Category, id: string): EntryHistory {
  return historyHandlers(from)["entry.history"]({ type: "entry.history", category, id }) as EntryHistory;
}

const T1 = "2026-01-01T00:00:00.000Z";
const T2 = "2026-01-02T00:00:00.000Z";
const T3 = "2026-01-03T00:00:00.000Z";

describe("entry.history", () => {
  test("versions run back through supersedes and forward through the change log", () => {
    const v1 = fact("aaaaaaa1", T1);
    const v2 = fact("aaaaaaa2", T2, { supersedes: "aaaaaaa1" });
    const v3 = fact("aaaaaaa3", T3, { corrects: "aaaaaaa2" });
    const log = [
      change("entry.superseded", "aaaaaaa1", T2, "aaaaaaa2"),
      change("entry.corrected", "aaaaaaa2", T3, "aaaaaaa3"),
    ];
    const history = historyOf(reads([v1, v2, v3], log), "fact", "aaaaaaa2");
    expect(history.versions.map((v) => v.id)).toEqual(["aaaaaaa1", "aaaaaaa2", "aaaaaaa3"]);
    expect(history.versions[1]).toEqual({
      id: "aaaaaaa2",
      recorded_at: T2,
      valid_from: T2,
      valid_to: null,
      expired_at: null,
      erased_at: null,
    });
    expect(history.events).toEqual([
      { type: "created", at: T2, by: "agent-1" },
      { type: "supersedes", at: T2, by: "agent-1", related: "aaaaaaa1" },
      { type: "corrected_by", at: T3, by: "agent-2", related: "aaaaaaa3" },
    ]);
    expect(history.erased_at).toBeNull();
  });

  test("events are ordered by time whatever order the log holds them in", () => {
    const entry = fact("bbbbbbb1", T1);
    const log = [
      change("entry.retracted", "bbbbbbb1", T3),
      change("entry.merged", "bbbbbbb1", T2, "bbbbbbb9"),
    ];
    const history = historyOf(reads([entry], log), "fact", "bbbbbbb1");
    expect(history.events.map((e) => e.type)).toEqual(["created", "merged_into", "retracted"]);
  });

  test("an erased entry is its tombstone: created when it was recorded, erased when it was erased", () => {
    const tombstone: Tombstone = {
      id: "ccccccc1",
      category: "fact",
      recorded_at: T1,
      erased_at: T3,
      erased_by: "op",
    };
    const log = [change("entry.erased", "ccccccc1", T3)];
    const history = historyOf(reads([], log, [tombstone]), "fact", "ccccccc1");
    expect(history.erased_at).toBe(T3);
    expect(history.versions).toEqual([
      { id: "ccccccc1", recorded_at: T1, valid_from: null, valid_to: null, expired_at: null, erased_at: T3 },
    ]);
    expect(history.events).toEqual([
      { type: "created", at: T1, by: "unknown" },
      { type: "erased", at: T3, by: "agent-2" },
    ]);
  });

  test("a creation comes from the entry, or from the tombstone's created_by, when the log indexes none", () => {
    const live = historyOf(reads([fact("eeeeeee1", T1)], []), "fact", "eeeeeee1");
    expect(live.events).toEqual([{ type: "created", at: T1, by: "agent-1" }]);
    const tombstone: Tombstone = {
      id: "eeeeeee2",
      category: "fact",
      recorded_at: T1,
      erased_at: T3,
      erased_by: "op",
      created_by: "agent-1",
    };
    const erased = historyOf(
      reads([], [change("entry.erased", "eeeeeee2", T3)], [tombstone]),
      "fact",
      "eeeeeee2",
    );
    expect(erased.events).toEqual([
      { type: "created", at: T1, by: "agent-1" },
      { type: "erased", at: T3, by: "agent-2" },
    ]);
  });

  test("an entry asked for under another category, or not there, is not found", () => {
    const stored = reads([fact("ddddddd1", T1)], []);
    expect(() => historyOf(stored, "decision", "ddddddd1")).toThrow(NotFound);
    expect(() => historyOf(stored, "fact", "ddddddd2")).toThrow(NotFound);
  });
});

describe("changes.since", () => {
  test("answers the changes after a position, at most `limit`, and the last position", () => {
    const log = [
      change("entry.created", "e1", T1),
      change("entry.created", "e2", T2),
      change("entry.created", "e3", T3),
    ];
    const first = log[0]!.seq;
    const answer = historyHandlers(reads([], log))["changes.since"]({
      type: "changes.since",
      after: first,
      limit: 1,
    });
    expect(answer).toEqual({ changes: [log[1]!], last: log[2]!.seq });
  });
});
