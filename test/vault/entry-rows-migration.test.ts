import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database, Key } from "lmdb";
import type { StoredEntry } from "../../src/memory/temporal.ts";
import { openEnvironment } from "../../src/vault/tables.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { toIdKeyedLayout } from "../helpers/id-keyed-layout.ts";

type Token = { token: string };

/** What the reads that used the earlier index tables answer: lists by category and tag, searches. */
async function reads(h: Harness, as: Token) {
  const list = async (path: string) => {
    const res = await h.json("GET", path, as);
    expect(res.status).toBe(200);
    return res.body.items.map((e: { id: string }) => e.id);
  };
  const search = async (body: Record<string, unknown>) => {
    const res = await h.json("POST", "/memory/search", { ...as, body });
    expect(res.status).toBe(200);
    return res.body.results.map((r: { entry: { id: string; valid_to: string | null } }) => [
      r.entry.id,
      r.entry.valid_to,
    ]);
  };
  return {
    facts: await list("/memory/facts?limit=50"),
    decisions: await list("/memory/decisions?limit=50"),
    tagged: await list("/memory/facts?tag=red&limit=50"),
    filtered: await search({ categories: ["fact"], tags: ["red"], limit: 10 }),
    anyTag: await search({ tags_any: ["blue", "green"], limit: 10 }),
    newest: await search({ limit: 10 }),
    /** The superseded entry, valid then (its valid time closed by the supersession). */
    validThen: await search({ categories: ["fact"], valid_at: "2026-01-15T00:00:00.000Z", limit: 10 }),
  };
}

/** Rewrites a vault into the earlier layout: three index tables, no index records. */
function toEarlierLayout(dir: string): void {
  // That layout kept entries under their id too (seq-layout.ts migrates it first).
  toIdKeyedLayout(dir);
  const root = openEnvironment(dir);
  const db = (name: string) => root.openDB({ name }) as Database<unknown, Key>;
  const [entries, rows] = [db("entries"), db("entry-rows")];
  const [byCategory, byTag, byValid] = [db("by-category"), db("by-tag"), db("by-valid")];
  root.transactionSync(() => {
    for (const { value } of entries.getRange()) {
      const { seq, entry } = value as StoredEntry;
      byCategory.put([entry.category, seq], entry.id);
      for (const tag of new Set(entry.tags ?? [])) byTag.put([tag, seq], entry.id);
      byValid.put([Date.parse(entry.valid_from), seq], entry.id);
    }
  });
  rows.clearSync();
  void root.close();
}

function tableCounts(dir: string): Record<string, number> {
  const root = openEnvironment(dir);
  try {
    const count = (name: string) => (root.openDB({ name }).getStats() as { entryCount: number }).entryCount;
    return { rows: count("entry-rows"), byCategory: count("by-category"), byTag: count("by-tag") };
  } finally {
    void root.close();
  }
}

describe("a vault of the earlier index layout", () => {
  test("is migrated on open: one index record per entry, and every read answers as before", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mrt-rows-migration-"));
    try {
      const before = await startHarness({ dataDir });
      const tenant = await before.createTenant();
      const as = { token: tenant.token };
      const write = async (path: string, body: Record<string, unknown>) => {
        const res = await before.json("POST", path, { ...as, body });
        expect(res.status).toBe(201);
        return res.body.id as string;
      };
      await write("/memory/facts", { content: "The office is on Harbour Street", tags: ["red", "blue"] });
      const old = await write("/memory/facts", {
        content: "Support closes at six",
        tags: ["red"],
        valid_from: "2026-01-01T00:00:00.000Z",
      });
      await write("/memory/facts", {
        content: "Support closes at eight",
        tags: ["red", "green"],
        valid_from: "2026-02-01T00:00:00.000Z",
        supersedes: old,
      });
      await write("/memory/decisions", { content: "Ship the beta", rationale: "ready", tags: ["green"] });
      const expected = await reads(before, as);
      expect(expected.facts.length).toBe(2);
      expect(expected.tagged.length).toBe(2);
      expect(expected.anyTag.length).toBe(3);
      expect(expected.validThen).toContainEqual([old, "2026-02-01T00:00:00.000Z"]);
      await before.close();

      const dir = tenantDir(dataDir, tenant.tenant_id);
      toEarlierLayout(dir);
      expect(tableCounts(dir)).toEqual({ rows: 0, byCategory: 4, byTag: 6 });

      const after = await startHarness({ dataDir });
      try {
        expect(await reads(after, as)).toEqual(expected);
      } finally {
        await after.close();
      }
      expect(tableCounts(dir)).toEqual({ rows: 4, byCategory: 0, byTag: 0 });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
