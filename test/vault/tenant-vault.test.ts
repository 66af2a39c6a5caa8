import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "lmdb";
import { IngestStore } from "../../actors/tenant/ingest/ingest-store.ts";
import { EntryStore } from "../../actors/tenant/memory/entry-store.ts";
import type { StoredEntry } from "../../src/memory/temporal.ts";
import type { Category } from "../../src/models/category.ts";
import type { Entry } from "../../src/models/entry.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";
import { writableTables } from "../helpers/vault-tables.ts";

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
    origin: { kind: "agent", sub: "a" },
    trust: "agent",
    ...over,
  } as Entry;
  return { seq: vault.nextSeq(), entry };
}

const ids = (it: Iterable<StoredEntry>) => [...it].map((s) => s.entry.id);
/** The vault's entries and ingest records as the tenant actor's slices read them. */
const entriesOf = (vault: TenantVault) => new EntryStore(vault);
const ingestOf = (vault: TenantVault) => new IngestStore(vault);

describe("TenantVault: answers from pending state wait for its commit", () => {
  test("reading a pending entry, dedupe or idempotency record observes its commit; committed reads do not", async () => {
    const vault = openVault();
    const s = stored(vault);
    const committed = vault.write({
      entries: [s],
      created: [s],
      dedupe: { key: "src\u0000ev-1", record: { at: 1, entries: [s.entry.id] } },
      idempotency: { key: "k", record: { at: 1, status: 201, body: s.entry } },
    });
    expect(vault.takeObserved()).toEqual([]);
    expect(entriesOf(vault).get(s.entry.id)).toEqual(s);
    expect(ingestOf(vault).deduped("src\u0000ev-1")?.entries).toEqual([s.entry.id]);
    expect(entriesOf(vault).idempotent("k", 1, 1000)?.status).toBe(201);
    const observed = vault.takeObserved();
    expect(observed.length).toBe(1);
    let settled = false;
    void observed[0]!.then(() => {
      settled = true;
    });
    await committed;
    await Promise.resolve();
    expect(settled).toBe(true);
    // Committed now: the same reads observe nothing.
    expect(entriesOf(vault).get(s.entry.id)?.entry.id).toBe(s.entry.id);
    expect(ingestOf(vault).deduped("src\u0000ev-1")).toBeDefined();
    expect(vault.takeObserved()).toEqual([]);
  });

  test("a list that includes a pending entry observes its commit", async () => {
    const vault = openVault();
    const s = stored(vault, "decision");
    const committed = vault.write({ entries: [s], created: [s] });
    expect(ids(entriesOf(vault).scanCategory("decision"))).toEqual([s.entry.id]);
    expect(vault.takeObserved().length).toBe(1);
    await committed;
  });

  test("a failed commit fails what observed it", async () => {
    const vault = openVault();
    const s = stored(vault);
    // The commit of this write set fails (as a full disk would fail it).
    const meta = vault.tablesOf("vault").meta as unknown as { put(k: string, v: unknown): Promise<boolean> };
    const put = meta.put.bind(meta);
    meta.put = (k, v) => (k === "~commit" ? Promise.reject(new Error("disk full")) : put(k, v));
    const committed = vault.write({ entries: [s], created: [s] });
    meta.put = put;
    entriesOf(vault).get(s.entry.id);
    const [observed] = vault.takeObserved();
    await expect(committed).rejects.toThrow("disk full");
    await expect(observed!).rejects.toThrow("disk full");
  });

  test("a key LMDB could not store refuses the whole set before anything is queued", async () => {
    const vault = openVault();
    const s = stored(vault);
    const refused = vault.write({ entries: [s], created: [s], state: [["k".repeat(4096), 1]] });
    await expect(refused).rejects.toThrow("exceeds LMDB");
    expect(entriesOf(vault).get(s.entry.id)).toBeUndefined();
    await vault.write({ entries: [], created: [] });
    expect(entriesOf(vault).get(s.entry.id)).toBeUndefined();
    expect(vault.counters.entryCount()).toBe(0);
  });
});

describe("TenantVault", () => {
  test("a pending write is readable before its commit lands, and after", async () => {
    const vault = openVault();
    const s = stored(vault);
    const committed = vault.write({ entries: [s], created: [s] });
    // Synchronously after staging: the transaction has not necessarily committed yet.
    expect(entriesOf(vault).get(s.entry.id)).toEqual(s);
    expect(entriesOf(vault).has(s.entry.id)).toBe(true);
    expect(ids(entriesOf(vault).scanCategory("fact"))).toEqual([s.entry.id]);
    await committed;
    expect(entriesOf(vault).get(s.entry.id)).toEqual(s);
    expect(vault.counters.entryCount()).toBe(1);
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
    expect(entriesOf(vault).vector(s.entry.id)).toEqual(vec);
    expect(entriesOf(vault).idempotent("k1", 1500, 1000)?.status).toBe(201);
    expect(ingestOf(vault).deduped("crm:e1")?.entries).toEqual([s.entry.id]);
    await committed;
    expect(Array.from(entriesOf(vault).vector(s.entry.id)!)).toEqual([1, 2, 3]);
    expect(entriesOf(vault).idempotent("k1", 1500, 1000)?.body).toEqual(s.entry);
    // Past the TTL the record no longer answers.
    expect(entriesOf(vault).idempotent("k1", 2000, 1000)).toBeUndefined();
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
    expect(entriesOf(reopened).get(a.entry.id)).toEqual(a);
    expect(entriesOf(reopened).get(b.entry.id)).toEqual(b);
    expect(ids(entriesOf(reopened).scanCategory("fact"))).toEqual([b.entry.id, a.entry.id]);
    expect(ids(entriesOf(reopened).scanTag("t"))).toEqual([a.entry.id]);
    expect(Array.from(entriesOf(reopened).vector(a.entry.id)!)).toEqual([0.5, -1]);
    expect(entriesOf(reopened).idempotent("key", 2, 1000)?.status).toBe(201);
    expect(reopened.counters.entryCount()).toBe(2);
    // New entries must sort after the old ones: the sequence continues.
    expect(reopened.nextSeq()).toBeGreaterThan(lastSeq);
  });

  test("close is idempotent: a second and a concurrent close resolve, and the data reopens intact", async () => {
    const dir = tempDir();
    const vault = new TenantVault(dir);
    const s = stored(vault);
    await vault.write({ entries: [s], created: [s] });
    const [first, concurrent] = await Promise.all([vault.close(), vault.close()]);
    expect([first, concurrent]).toEqual([undefined, undefined]);
    expect(await vault.close()).toBeUndefined();
    // The environment was really released: the same directory opens again with the entry in it.
    const reopened = openVault(dir);
    expect(entriesOf(reopened).get(s.entry.id)?.entry).toEqual(s.entry);
    expect(reopened.counters.entryCount()).toBe(1);
  });
});

describe("TenantVault: counters", () => {
  const write = (vault: TenantVault, s: StoredEntry) => vault.write({ entries: [s], created: [s] });

  test("entries per category and writes per day are counted with each write", async () => {
    const vault = openVault();
    await write(vault, stored(vault, "fact", { recorded_at: "2026-11-01T10:00:00.000Z" }));
    await write(vault, stored(vault, "fact", { recorded_at: "2026-11-01T23:59:59.999Z" }));
    await write(vault, stored(vault, "decision", { recorded_at: "2026-11-02T00:00:00.000Z" }));
    await write(vault, stored(vault, "outcome", { recorded_at: "2026-12-01T00:00:00.000Z" }));
    expect(vault.counters.perCategory()).toEqual({
      decision: 1,
      exception: 0,
      fact: 2,
      workflow: 0,
      relationship: 0,
      outcome: 1,
    });
    expect(vault.counters.writesPerDay("2026-11-01", "2026-11-30")).toEqual([
      { day: "2026-11-01", category: "fact", writes: 2 },
      { day: "2026-11-02", category: "decision", writes: 1 },
    ]);
  });

  test("an update of an existing entry is not a new write", async () => {
    const vault = openVault();
    const s = stored(vault, "decision", { recorded_at: "2026-11-01T10:00:00.000Z" });
    await write(vault, s);
    await vault.write({ entries: [{ ...s, entry: { ...s.entry, status: "resolved" } }], created: [] });
    expect(vault.counters.perCategory().decision).toBe(1);
  });

  test("a batch puts each counter once, with the sum of its entries, and they hold after a reopen", async () => {
    const dir = tempDir();
    const vault = openVault(dir);
    const batch = [
      stored(vault, "fact", { recorded_at: "2026-11-03T01:00:00.000Z" }),
      stored(vault, "fact", { recorded_at: "2026-11-03T02:00:00.000Z" }),
      stored(vault, "fact", { recorded_at: "2026-11-04T02:00:00.000Z" }),
      stored(vault, "decision", { recorded_at: "2026-11-03T03:00:00.000Z" }),
    ];
    const meta = writableTables(vault, "vault").meta;
    const puts: string[] = [];
    const put = meta.put.bind(meta);
    meta.put = ((key: string, value: number) => {
      puts.push(key);
      return put(key, value);
    }) as typeof meta.put;
    await vault.write({ entries: batch, created: batch });
    meta.put = put;
    expect(puts.filter((k) => k === "n:fact")).toEqual(["n:fact"]);
    expect(puts.filter((k) => k.startsWith("w:")).sort()).toEqual([
      "w:2026-11-03:decision",
      "w:2026-11-03:fact",
      "w:2026-11-04:fact",
    ]);
    await vault.close();
    const reopened = openVault(dir);
    expect(reopened.counters.perCategory().fact).toBe(3);
    expect(reopened.counters.perCategory().decision).toBe(1);
    expect(reopened.counters.writesPerDay("2026-11-03", "2026-11-04")).toEqual([
      { day: "2026-11-03", category: "decision", writes: 1 },
      { day: "2026-11-03", category: "fact", writes: 2 },
      { day: "2026-11-04", category: "fact", writes: 1 },
    ]);
  });

  test("a write with changes resolves on their commit, without a marker put; one without changes still resolves", async () => {
    const vault = openVault();
    const s = stored(vault, "fact");
    await vault.write({
      entries: [s],
      created: [s],
      changes: [{ type: "entry.created", id: s.entry.id, category: "fact", by: "t" }],
    });
    expect(vault.tablesOf("vault").meta.get("~commit")).toBeUndefined();
    expect(vault.changes.last()).toBe(1);
    const t = stored(vault, "fact");
    await vault.write({ entries: [t], created: [t] });
    expect(vault.tablesOf("memory").entries.get(t.seq)?.entry.id).toBe(t.entry.id);
  });

  test("a vault written before the counters existed gets them when it is opened", async () => {
    const dir = tempDir();
    const old = new TenantVault(dir);
    for (let i = 0; i < 3; i++)
      await write(old, stored(old, "workflow", { recorded_at: "2026-10-05T08:00:00.000Z" }));
    // What an older version left behind: entries without counters.
    await writableTables(old, "vault").meta.clearAsync();
    await old.close();
    const reopened = openVault(dir);
    expect(reopened.counters.perCategory().workflow).toBe(3);
    expect(reopened.counters.writesPerDay("2026-10-05", "2026-10-05")).toEqual([
      { day: "2026-10-05", category: "workflow", writes: 3 },
    ]);
  });
});

describe("TenantVault: the change log", () => {
  test("changes commit with their write, in order, and reach the listener only once committed", async () => {
    const heard: number[][] = [];
    const dir = tempDir();
    const vault = openVault(dir);
    await vault.close();
    const v = new TenantVault(dir, { onCommitted: (c) => heard.push(c.map((x) => x.seq)), now: () => 1_000 });
    vaults.push(v);
    const a = stored(v);
    const b = stored(v);
    const first = v.write({
      entries: [a],
      created: [a],
      changes: [{ type: "entry.created", id: a.entry.id, by: "x" }],
    });
    const second = v.write({
      entries: [b],
      created: [b],
      changes: [
        { type: "entry.created", id: b.entry.id, by: "y" },
        { type: "entry.superseded", id: a.entry.id, by: "y", related: b.entry.id },
      ],
    });
    expect(heard).toEqual([]);
    await Promise.all([first, second]);
    expect(heard).toEqual([[1], [2, 3]]);
    expect(v.changes.since(0, 10).map((c) => [c.seq, c.type, c.at])).toEqual([
      [1, "entry.created", "1970-01-01T00:00:01.000Z"],
      [2, "entry.created", "1970-01-01T00:00:01.000Z"],
      [3, "entry.superseded", "1970-01-01T00:00:01.000Z"],
    ]);
    expect(v.changes.since(1, 1).map((c) => c.seq)).toEqual([2]);
    // Creations are in the log but not its by-entry index: a new entry's one random key is its id.
    expect(v.changes.of(a.entry.id).map((c) => c.type)).toEqual(["entry.superseded"]);
    expect(v.changes.of(b.entry.id)).toEqual([]);
    expect([...v.tablesOf("log").changesByEntry.getKeys()]).toEqual([[a.entry.id, 3]]);
  });

  test("positions continue after a reopen", async () => {
    const dir = tempDir();
    const v = new TenantVault(dir);
    const a = stored(v);
    await v.write({
      entries: [a],
      created: [a],
      changes: [{ type: "entry.created", id: a.entry.id, by: "x" }],
    });
    await v.close();
    const reopened = openVault(dir);
    expect(reopened.changes.last()).toBe(1);
    const b = stored(reopened);
    await reopened.write({
      entries: [b],
      created: [b],
      changes: [{ type: "entry.created", id: b.entry.id, by: "x" }],
    });
    expect(reopened.changes.since(0, 10).map((c) => c.seq)).toEqual([1, 2]);
  });
});

describe("TenantVault: vectors keyed by sequence number", () => {
  test("a vault of the first layout (vectors keyed by id) is rekeyed when opened", async () => {
    const dir = tempDir();
    const old = new TenantVault(dir);
    const s = stored(old);
    await old.write({ entries: [s], created: [s] });
    const vec = new Float32Array([1, 2, 3]);
    const legacy = old.tablesOf("memory").embeddings as unknown as Database<Buffer, string>;
    await legacy.put(s.entry.id, Buffer.from(vec.buffer));
    await old.close();
    const reopened = openVault(dir);
    expect(entriesOf(reopened).vector(s.entry.id)).toEqual(vec);
    const keys = [...reopened.tablesOf("memory").embeddings.getKeys()];
    expect(keys).toEqual([s.seq]);
  });
});
