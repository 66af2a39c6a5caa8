/**
 * The erase slice's matching and report as pure logic over fake memory, ingest and vault: entries
 * are found by id, tag or a subject anywhere in their content (not in their ids or times); what
 * else carries them (dead letters, idempotency records, delivery-log records, held events) is
 * counted; a dry run writes nothing, a real one writes one erasure with a tombstone and an
 * `entry.erased` change per entry and forgets their vectors.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ErasureOptions, TenantErasure } from "../../../../actors/tenant/erase/erase.ts";
import { tombstoneOf } from "../../../../actors/tenant/erase/tombstones.ts";
import { NotFound } from "../../../../src/errors/domain-errors.ts";
import type { StoredEntry } from "../../../../src/memory/temporal.ts";
import type { Tombstone } from "../../../../src/vault/write-set.ts";

const NOW = Date.parse("2026-03-01T12:00:00.000Z");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stored(id: string, fields: Record<string, unknown> = {}): StoredEntry {
  return {
    entry: {
      id,
      category: "fact",
      recorded_at: "2026-01-01T00:00:00.000Z",
      created_by: "agent-1",
      tags: [],
      subject: "the weather",
      ...fields,
    },
  } as unknown as StoredEntry;
}

interface World {
  entries: StoredEntry[];
  tombstones?: Tombstone[];
  deadLetters?: Array<[string, unknown]>;
  idempotency?: Array<[string, { body?: unknown }]>;
  log?: Array<{ key: [number, number]; entries: string[]; event_id: string; event_type: string }>;
  held?: Array<{ source: string; seq: number; event_id: string; payload: unknown }>;
}

function erasure(world: World) {
  const written: unknown[] = [];
  const forgotten: string[][] = [];
  const dir = mkdtempSync(join(tmpdir(), "mr-erase-unit-"));
  dirs.push(dir);
  const byId = new Map(world.entries.map((s) => [s.entry.id, s]));
  const opts = {
    vault: {
      dir,
      tablesOf: () => ({ tombstones: { get: (id: string) => world.tombstones?.find((t) => t.id === id) } }),
      write: (set: unknown) => {
        written.push(set);
        return Promise.resolve();
      },
    },
    memory: {
      entries: {
        get: (id: string) => byId.get(id),
        *scanTag(tag: string) {
          for (const s of world.entries) if ((s.entry.tags ?? []).includes(tag)) yield s;
        },
        *all() {
          yield* world.entries;
        },
        *pending() {},
        *idempotencyRecords() {
          yield* world.idempotency ?? [];
        },
      },
      indexes: { forget: (ids: Set<string>) => forgotten.push([...ids]), restore: () => undefined },
    },
    ingest: {
      store: {
        *deadLetterRecords() {
          yield* world.deadLetters ?? [];
        },
      },
      log: {
        keysWhere: (pick: (r: unknown) => boolean) =>
          (world.log ?? []).filter((r) => pick(r)).map((r) => r.key),
      },
      held: {
        *all() {
          yield* world.held ?? [];
        },
      },
    },
    clock: { now: () => NOW },
  } as unknown as ErasureOptions;
  return { erasure: new TenantErasure(opts), written, forgotten };
}

describe("matching", () => {
  test("by id, by tag and by subject in the content, never in ids or times", () => {
    const { erasure: e } = erasure({
      entries: [
        stored("aaaaaaa1"),
        stored("aaaaaaa2", { tags: ["gdpr"] }),
        stored("aaaaaaa3", { subject: "Mail from ALICE@example.com" }),
        // "alice" only in its id and a time: the server's own fields are not content.
        stored("alice001", { recorded_at: "alice", valid_from: "alice" }),
      ],
    });
    const { report } = e.erase({ ids: ["aaaaaaa1"], tags: ["gdpr"], subject: "Alice", dry_run: true }, "op");
    expect(report.erased.map((x) => x.id).sort()).toEqual(["aaaaaaa1", "aaaaaaa2", "aaaaaaa3"]);
    expect(report.dry_run).toBe(true);
    expect(report.erased_at).toBe("2026-03-01T12:00:00.000Z");
  });

  test("an erased id is reported as already erased; an unknown one is not found", () => {
    const tombstone = tombstoneOf(stored("bbbbbbb1"), NOW, "op");
    const { erasure: e } = erasure({ entries: [], tombstones: [tombstone] });
    expect(e.erase({ ids: ["bbbbbbb1"] }, "op").report.already_erased).toEqual(["bbbbbbb1"]);
    expect(() => e.erase({ ids: ["bbbbbbb1", "bbbbbbb2"] }, "op")).toThrow(NotFound);
  });

  test("counts the dead letters, idempotency records, log records and held events that carry it", () => {
    const { erasure: e } = erasure({
      entries: [stored("ccccccc1"), stored("ccccccc2")],
      deadLetters: [
        ["d1", { entries: ["ccccccc1"], payload: {} }],
        ["d2", { entries: [], payload: { from: "Bob" } }],
        ["d3", { entries: ["other"], payload: {} }],
      ],
      idempotency: [
        ["k1", { body: { id: "ccccccc1" } }],
        ["k2", { body: { id: "zzzzzzzz" } }],
      ],
      log: [
        { key: [1, 0], entries: ["ccccccc1"], event_id: "e1", event_type: "mail" },
        { key: [2, 0], entries: [], event_id: "bob-7", event_type: "mail" },
        { key: [3, 0], entries: [], event_id: "e3", event_type: "mail" },
      ],
      held: [{ source: "mail", seq: 4, event_id: "e4", payload: { to: "bob" } }],
    });
    const { report } = e.erase({ ids: ["ccccccc1"], subject: "BOB" }, "op");
    expect(report.erased.map((x) => x.id)).toEqual(["ccccccc1"]);
    expect(report.dead_letters_removed).toBe(2);
    expect(report.idempotency_records_removed).toBe(1);
    expect(report.deliveries_removed).toBe(3);
  });
});

describe("writing", () => {
  test("a dry run writes nothing and forgets no vector", () => {
    const { erasure: e, written, forgotten } = erasure({ entries: [stored("ddddddd1")] });
    e.erase({ ids: ["ddddddd1"], dry_run: true }, "op");
    expect(written).toEqual([]);
    expect(forgotten).toEqual([]);
  });

  test("an erasure writes a tombstone and an entry.erased change per entry, and forgets their vectors", async () => {
    const entry = stored("eeeeeee1");
    const { erasure: e, written, forgotten } = erasure({ entries: [entry] });
    const { committed } = e.erase({ ids: ["eeeeeee1"] }, "op");
    await committed;
    expect(written).toHaveLength(1);
    const set = written[0] as { erase: { tombstones: Tombstone[] }; changes: unknown[]; at: number };
    expect(set.erase.tombstones).toEqual([
      {
        id: "eeeeeee1",
        category: "fact",
        recorded_at: "2026-01-01T00:00:00.000Z",
        erased_at: "2026-03-01T12:00:00.000Z",
        erased_by: "op",
        // Who wrote it: history reads the creation here once the entry is gone (change-log.ts).
        created_by: "agent-1",
      },
    ]);
    expect(set.changes).toEqual([{ type: "entry.erased", id: "eeeeeee1", category: "fact", by: "op" }]);
    expect(set.at).toBe(NOW);
    expect(forgotten).toEqual([["eeeeeee1"]]);
  });

  test("nothing matched: nothing written", () => {
    const { erasure: e, written } = erasure({ entries: [stored("fffffff1")] });
    expect(e.erase({ subject: "nobody" }, "op").report.erased).toEqual([]);
    expect(written).toEqual([]);
  });
});
