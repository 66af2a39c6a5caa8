/**
 * The sequence-keyed entry layout (issue 35, item 1; src/vault/seq-layout.ts): a vault of the
 * id-keyed layout is migrated on open and every read and the export answer as before; a kill -9
 * of a process mid-migration leaves the old layout whole, and the next open migrates it, every
 * entry readable once; a crash after the marker only leaves the old table to drop.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database, Key } from "lmdb";
import type { StoredEntry } from "../../src/models/stored-entry.ts";
import { ID_KEYED_ENTRIES, SEQ_LAYOUT_KEY } from "../../src/vault/seq-layout.ts";
import { openEnvironment, TABLES } from "../../src/vault/tables.ts";
import { tenantDir } from "../../src/vault/tenant-paths.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { toIdKeyedLayout } from "../helpers/id-keyed-layout.ts";
import { ROOT } from "../helpers/spawn.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data directory with one tenant holding `n` facts (the third superseded, one erased) and a decision. */
async function written(n: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "mrt-seq-layout-"));
  dirs.push(dataDir);
  const h = await startHarness({ dataDir });
  const tenant = await h.createTenant();
  const as = { token: tenant.token };
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const body: Record<string, unknown> = {
      content: `Fact number ${i} about the harbour office`,
      tags: [`t${i % 3}`],
    };
    if (i === 3) body.supersedes = ids[2];
    const res = await h.json("POST", "/memory/facts", { ...as, body });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const decision = await h.json("POST", "/memory/decisions", {
    ...as,
    body: { content: "Move the office", rationale: "rent" },
  });
  expect(decision.status).toBe(201);
  ids.push(decision.body.id);
  const erased = await h.call("POST", `/admin/tenants/${tenant.tenant_id}/erase`, {
    token: h.adminToken,
    body: { ids: [ids[0]] },
  });
  expect(erased.status).toBe(200);
  const expected = await reads(h, as, ids);
  await h.close();
  return { dataDir, tenant, as, ids, expected, dir: tenantDir(dataDir, tenant.tenant_id) };
}

/** Every entry by id, the lists, a search, the history of the superseded one, and the export. */
async function reads(h: Harness, as: { token: string }, ids: string[]) {
  const byId: Array<[number, unknown]> = [];
  for (const id of ids) {
    const path = id === ids.at(-1) ? `/memory/decisions/${id}` : `/memory/facts/${id}`;
    const res = await h.json("GET", path, as);
    // A problem's request id is the request's own.
    byId.push([res.status, { ...res.body, request_id: undefined }]);
  }
  const facts = await h.json("GET", "/memory/facts?limit=100", as);
  const tagged = await h.json("GET", "/memory/facts?tag=t1&limit=100", as);
  const search = await h.json("POST", "/memory/search", {
    ...as,
    body: { query: "harbour office", limit: 5 },
  });
  const history = await h.json("GET", `/memory/facts/${ids[2]}/history`, as);
  const tenantId = (await h.json("GET", "/memory/facts?limit=1", as)).body.items[0].tenant_id;
  const exported = await h.call("GET", `/admin/tenants/${tenantId}/export`, { token: h.adminToken });
  expect(exported.status).toBe(200);
  const lines = (await exported.text()).trim().split("\n");
  return {
    byId,
    facts: facts.body.items.map((e: { id: string }) => e.id),
    tagged: tagged.body.items.map((e: { id: string }) => e.id),
    search: search.body.results.map((r: { entry: { id: string } }) => r.entry.id),
    history: history.body,
    // The header names when it was made; every record after it is the vault's.
    records: lines.slice(1),
  };
}

/** The tables of both layouts in a closed vault: counts, and the marker. */
function onDisk(dir: string) {
  const root = openEnvironment(dir);
  try {
    const names = new Set([...root.getKeys()].map(String));
    const count = (name: string) =>
      names.has(name) ? (root.openDB({ name }).getStats() as { entryCount: number }).entryCount : undefined;
    const meta = root.openDB({ name: TABLES.vault.meta.name }) as Database<unknown, string>;
    return {
      old: count(ID_KEYED_ENTRIES),
      bySeq: count(TABLES.memory.entries.name),
      ids: count(TABLES.memory.entryIds.name),
      marker: meta.get(SEQ_LAYOUT_KEY),
    };
  } finally {
    void root.close();
  }
}

/** The old table's entries, as an old runtime would read them: id → seq. */
function oldEntries(dir: string): Map<string, number> {
  const root = openEnvironment(dir);
  try {
    const db = root.openDB({ name: ID_KEYED_ENTRIES }) as Database<StoredEntry, Key>;
    return new Map([...db.getRange()].map(({ key, value }) => [String(key), value.seq]));
  } finally {
    void root.close();
  }
}

/** Runs the migrator child on `dir` until it reports its first committed transaction, then kills it with SIGKILL. */
async function killMidMigration(dir: string, chunk: number): Promise<string> {
  const proc = Bun.spawn(
    [process.execPath, "run", join(ROOT, "test/vault/seq-layout-migrator.ts"), dir, String(chunk)],
    {
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const deadline = setTimeout(() => proc.kill(9), 20_000);
  const reader = proc.stdout.getReader();
  let text = "";
  try {
    while (!/copied \d+\n/.test(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`migrator ended early: ${text}`);
      text += new TextDecoder().decode(value);
    }
  } finally {
    proc.kill(9);
    clearTimeout(deadline);
    await proc.exited;
  }
  expect(proc.signalCode).toBe("SIGKILL");
  return text;
}

describe("a vault of the id-keyed entry layout", () => {
  test("is migrated on open: every read and the export answer as before, the old table gone", async () => {
    const w = await written(8);
    const stored = toIdKeyedLayout(w.dir);
    expect(stored).toBe(8);
    expect(onDisk(w.dir)).toEqual({ old: 8, bySeq: undefined, ids: undefined, marker: undefined });
    const h = await startHarness({ dataDir: w.dataDir });
    try {
      expect(await reads(h, w.as, w.ids)).toEqual(w.expected);
    } finally {
      await h.close();
    }
    expect(onDisk(w.dir)).toEqual({ old: undefined, bySeq: 8, ids: 8, marker: 1 });
  });

  test("a kill -9 mid-migration leaves the old layout readable; the next open migrates it, each entry once", async () => {
    const w = await written(12);
    toIdKeyedLayout(w.dir);
    const before = oldEntries(w.dir);
    expect(before.size).toBe(12);
    // Two interrupted runs: the second starts over from what the first left.
    for (let round = 0; round < 2; round++) {
      expect(await killMidMigration(w.dir, 5)).toBe("copied 5\n");
      // Mid-migration: part of the new tables written, no marker, the old table whole.
      expect(onDisk(w.dir)).toEqual({ old: 12, bySeq: 5, ids: 5, marker: undefined });
      expect(oldEntries(w.dir)).toEqual(before);
    }
    const h = await startHarness({ dataDir: w.dataDir });
    try {
      const after = await reads(h, w.as, w.ids);
      expect(after).toEqual(w.expected);
      // Every current fact once in the list: 12 written, one erased, one superseded.
      expect(new Set(after.facts).size).toBe(after.facts.length);
      expect(after.facts.length).toBe(10);
      // Every stored entry readable by id: the erased one answers 410, as before.
      expect(after.byId.map(([status]) => status)).toEqual([410, ...Array(12).fill(200)]);
    } finally {
      await h.close();
    }
    expect(onDisk(w.dir)).toEqual({ old: undefined, bySeq: 12, ids: 12, marker: 1 });
  });

  test("a crash after the marker leaves only the old table to drop: the next open drops it", async () => {
    const w = await written(4);
    // What a kill between the marker's commit and the drop leaves: both layouts, the marker set.
    const root = openEnvironment(w.dir);
    const bySeq = root.openDB({ name: TABLES.memory.entries.name }) as Database<StoredEntry, number>;
    const old = root.openDB({ name: ID_KEYED_ENTRIES }) as Database<StoredEntry, string>;
    root.transactionSync(() => {
      for (const { value } of bySeq.getRange()) old.put(value.entry.id, value);
    });
    await root.close();
    expect(onDisk(w.dir)).toEqual({ old: 4, bySeq: 4, ids: 4, marker: 1 });
    const h = await startHarness({ dataDir: w.dataDir });
    try {
      expect(await reads(h, w.as, w.ids)).toEqual(w.expected);
    } finally {
      await h.close();
    }
    expect(onDisk(w.dir)).toEqual({ old: undefined, bySeq: 4, ids: 4, marker: 1 });
  });
});
