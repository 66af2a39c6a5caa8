import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntryStore } from "../../../../actors/tenant/memory/entry-store.ts";
import type { StoredEntry } from "../../../../src/memory/temporal.ts";
import type { Category } from "../../../../src/models/category.ts";
import type { Entry } from "../../../../src/models/entry.ts";
import { TenantVault } from "../../../../src/vault/tenant-vault.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
const vaults: TenantVault[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-entry-store-"));
  dirs.push(dir);
  return dir;
}

function openVault(dir = tempDir()): TenantVault {
  const v = new TenantVault(dir);
  vaults.push(v);
  return v;
}

afterEach(async () => {
  for (const v of vaults.splice(0)) await v.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

let idCounter = 0;
function stored(vault: TenantVault, category: Category = "fact", over: Partial<Entry> = {}): StoredEntry {
  const id = (++idCounter).toString(16).padStart(8, "0");
  const entry = {
    id,
    tenant_id: TENANT,
    category,
    content: `entry ${id}`,
    agent_id: "a",
    valid_from: "2026-01-01T00:00:00.000Z",
    valid_to: null,
    recorded_at: "2026-01-01T00:00:00.000Z",
    expired_at: null,
    invalidated_at: null,
    created_by: "a",
    ...over,
  } as Entry;
  return { seq: vault.nextSeq(), entry };
}

const ids = (it: Iterable<StoredEntry>) => [...it].map((s) => s.entry.id);
/** The vault's entries as the memory slice reads them. */
const entriesOf = (vault: TenantVault) => new EntryStore(vault);

describe("EntryStore: pending and committed entries, newest first", () => {
  const write = (vault: TenantVault, s: StoredEntry) => vault.write({ entries: [s], created: [s] });

  test("scanCategory merges pending and committed entries, newest first, one category only", async () => {
    const vault = openVault();
    const committed: StoredEntry[] = [];
    for (let i = 0; i < 5; i++) {
      const s = stored(vault, i % 2 === 0 ? "fact" : "decision");
      committed.push(s);
      await vault.write({ entries: [s], created: [s] });
    }
    const pending: StoredEntry[] = [];
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 4; i++) {
      const s = stored(vault, i % 2 === 0 ? "fact" : "decision");
      pending.push(s);
      writes.push(vault.write({ entries: [s], created: [s] }));
    }
    const all = [...committed, ...pending];
    const want = (c: Category) =>
      all
        .filter((s) => s.entry.category === c)
        .sort((a, b) => b.seq - a.seq)
        .map((s) => s.entry.id);
    expect(ids(entriesOf(vault).scanCategory("fact"))).toEqual(want("fact"));
    expect(ids(entriesOf(vault).scanCategory("decision"))).toEqual(want("decision"));
    await Promise.all(writes);
    expect(ids(entriesOf(vault).scanCategory("fact"))).toEqual(want("fact"));
    expect(ids(entriesOf(vault).scanCategory("decision"))).toEqual(want("decision"));
  });

  test("scanCategory with `before` starts strictly below that sequence number", async () => {
    const vault = openVault();
    const written: StoredEntry[] = [];
    for (let i = 0; i < 6; i++) {
      const s = stored(vault);
      written.push(s);
      await vault.write({ entries: [s], created: [s] });
    }
    const pivot = written[3]!.seq;
    expect(ids(entriesOf(vault).scanCategory("fact", pivot))).toEqual(
      written
        .slice(0, 3)
        .reverse()
        .map((s) => s.entry.id),
    );
  });

  test("an update of a committed entry, still pending, replaces it in scans (no duplicate)", async () => {
    const vault = openVault();
    const a = stored(vault);
    const b = stored(vault);
    await vault.write({ entries: [a, b], created: [a, b] });
    const updated: StoredEntry = { ...a, entry: { ...a.entry, expired_at: "2026-01-02T00:00:00.000Z" } };
    const c = stored(vault);
    const write = vault.write({ entries: [c, updated], created: [c] });
    const seen = [...entriesOf(vault).scanCategory("fact")];
    expect(seen.map((s) => s.entry.id)).toEqual([c.entry.id, b.entry.id, a.entry.id]);
    expect(seen[2]!.entry.expired_at).toBe("2026-01-02T00:00:00.000Z");
    await write;
    const after = [...entriesOf(vault).scanCategory("fact")];
    expect(after.map((s) => s.entry.id)).toEqual([c.entry.id, b.entry.id, a.entry.id]);
    expect(after[2]!.entry.expired_at).toBe("2026-01-02T00:00:00.000Z");
  });

  test("scanTag finds entries by tag, newest first, pending included", async () => {
    const vault = openVault();
    const a = stored(vault, "fact", { tags: ["red", "blue"] });
    const b = stored(vault, "decision", { tags: ["blue"] });
    await vault.write({ entries: [a, b], created: [a, b] });
    const c = stored(vault, "fact", { tags: ["blue"] });
    const w = vault.write({ entries: [c], created: [c] });
    expect(ids(entriesOf(vault).scanTag("blue"))).toEqual([c.entry.id, b.entry.id, a.entry.id]);
    expect(ids(entriesOf(vault).scanTag("red"))).toEqual([a.entry.id]);
    expect(ids(entriesOf(vault).scanTag("green"))).toEqual([]);
    await w;
  });

  test("all() yields every committed entry", async () => {
    const vault = openVault();
    const written = [stored(vault), stored(vault, "outcome"), stored(vault, "workflow")];
    await vault.write({ entries: written, created: written });
    expect(ids(entriesOf(vault).all()).sort()).toEqual(written.map((s) => s.entry.id).sort());
  });

  test("scanValid yields entries whose valid_from lies in [from, to), in-flight writes included", async () => {
    const vault = openVault();
    const at = (iso: string) => stored(vault, "fact", { valid_from: iso });
    const before = at("2026-11-01T00:00:00.000Z");
    const first = at("2026-11-02T00:00:00.000Z");
    const atEnd = at("2026-11-03T00:00:00.000Z");
    await Promise.all([write(vault, before), write(vault, first), write(vault, atEnd)]);
    const inFlight = at("2026-11-02T12:00:00.000Z");
    const committed = write(vault, inFlight);
    const window = [Date.parse("2026-11-02T00:00:00.000Z"), Date.parse("2026-11-03T00:00:00.000Z")] as const;
    expect(ids(entriesOf(vault).scanValid(...window))).toEqual([first.entry.id, inFlight.entry.id]);
    await committed;
    expect(ids(entriesOf(vault).scanValid(...window))).toEqual([first.entry.id, inFlight.entry.id]);
  });

  test("a vector is read back by entry id; the scan gives each vector with its id", async () => {
    const vault = openVault();
    const s = stored(vault);
    const vec = new Float32Array([0.5, -1, 2]);
    await vault.write({ entries: [s], created: [s], vectors: [[s.entry.id, vec]] });
    expect(entriesOf(vault).vector(s.entry.id)).toEqual(vec);
    const records = [...entriesOf(vault).vectorRecords()].map((r) => [r.id, [...r.vector()]]);
    expect(records).toEqual([[s.entry.id, [0.5, -1, 2]]]);
  });
});
