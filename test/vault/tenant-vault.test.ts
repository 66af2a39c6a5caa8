import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StoredEntry } from "../../src/memory/temporal.ts";
import type { Category } from "../../src/models/category.ts";
import type { Entry } from "../../src/models/entry.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
const vaults: TenantVault[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-vault-"));
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

describe("TenantVault", () => {
  test("a pending write is readable before its commit lands, and after", async () => {
    const vault = openVault();
    const s = stored(vault);
    const committed = vault.write({ entries: [s], created: [s] });
    // Synchronously after staging: the transaction has not necessarily committed yet.
    expect(vault.get(s.entry.id)).toEqual(s);
    expect(vault.has(s.entry.id)).toBe(true);
    expect(ids(vault.scanCategory("fact"))).toEqual([s.entry.id]);
    await committed;
    expect(vault.get(s.entry.id)).toEqual(s);
    expect(vault.entryCount()).toBe(1);
  });

  test("pending idempotency records, vectors and dedupe records are visible before commit", async () => {
    const vault = openVault();
    const s = stored(vault);
    const vec = new Float32Array([1, 2, 3]);
    const committed = vault.write({
      entries: [s],
      created: [s],
      vectors: [[s.entry.id, vec]],
      idempotency: { key: "k1", record: { at: 1000, status: 201, body: s.entry } },
      dedupe: { key: "crm:e1", record: { at: 1000, entries: [s.entry.id] } },
    });
    expect(vault.vector(s.entry.id)).toEqual(vec);
    expect(vault.idempotent("k1", 1500, 1000)?.status).toBe(201);
    expect(vault.deduped("crm:e1")?.entries).toEqual([s.entry.id]);
    await committed;
    expect(Array.from(vault.vector(s.entry.id)!)).toEqual([1, 2, 3]);
    expect(vault.idempotent("k1", 1500, 1000)?.body).toEqual(s.entry);
    // Past the TTL the record no longer answers.
    expect(vault.idempotent("k1", 2000, 1000)).toBeUndefined();
  });

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
    expect(ids(vault.scanCategory("fact"))).toEqual(want("fact"));
    expect(ids(vault.scanCategory("decision"))).toEqual(want("decision"));
    await Promise.all(writes);
    expect(ids(vault.scanCategory("fact"))).toEqual(want("fact"));
    expect(ids(vault.scanCategory("decision"))).toEqual(want("decision"));
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
    expect(ids(vault.scanCategory("fact", pivot))).toEqual(
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
    const seen = [...vault.scanCategory("fact")];
    expect(seen.map((s) => s.entry.id)).toEqual([c.entry.id, b.entry.id, a.entry.id]);
    expect(seen[2]!.entry.expired_at).toBe("2026-01-02T00:00:00.000Z");
    await write;
    const after = [...vault.scanCategory("fact")];
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
    expect(ids(vault.scanTag("blue"))).toEqual([c.entry.id, b.entry.id, a.entry.id]);
    expect(ids(vault.scanTag("red"))).toEqual([a.entry.id]);
    expect(ids(vault.scanTag("green"))).toEqual([]);
    await w;
  });

  test("a write survives close and reopen: entries, index keys, vectors, the sequence", async () => {
    const dir = tempDir();
    const vault = new TenantVault(dir);
    const a = stored(vault, "fact", { tags: ["t"] });
    const b = stored(vault, "fact");
    await vault.write({
      entries: [a, b],
      created: [a, b],
      vectors: [[a.entry.id, new Float32Array([0.5, -1])]],
      idempotency: { key: "key", record: { at: 1, status: 201, body: a.entry } },
    });
    const lastSeq = b.seq;
    await vault.close();
    const reopened = openVault(dir);
    expect(reopened.get(a.entry.id)).toEqual(a);
    expect(reopened.get(b.entry.id)).toEqual(b);
    expect(ids(reopened.scanCategory("fact"))).toEqual([b.entry.id, a.entry.id]);
    expect(ids(reopened.scanTag("t"))).toEqual([a.entry.id]);
    expect(Array.from(reopened.vector(a.entry.id)!)).toEqual([0.5, -1]);
    expect(reopened.idempotent("key", 2, 1000)?.status).toBe(201);
    expect(reopened.entryCount()).toBe(2);
    // New entries must sort after the old ones: the sequence continues.
    expect(reopened.nextSeq()).toBeGreaterThan(lastSeq);
  });

  test("close is idempotent", async () => {
    const vault = new TenantVault(tempDir());
    await vault.close();
    await vault.close();
  });

  test("all() yields every committed entry", async () => {
    const vault = openVault();
    const written = [stored(vault), stored(vault, "outcome"), stored(vault, "workflow")];
    await vault.write({ entries: written, created: written });
    expect(ids(vault.all()).sort()).toEqual(written.map((s) => s.entry.id).sort());
  });
});
