import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, type Sha8, sha8 } from "../../../../actors/tenant/memory/entry-id.ts";
import { IDEMPOTENCY_TTL_MS } from "../../../../actors/tenant/memory/idempotency.ts";
import { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import { IdempotencyMismatch } from "../../../../src/errors/domain-errors.ts";
import type { EntryDraft } from "../../../../src/models/entry.ts";
import type { CreateEntry } from "../../../../src/protocols/tenant-protocol.ts";
import { ManualClock } from "../../../../src/runtime/clock.ts";
import { TenantVault } from "../../../../src/vault/tenant-vault.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const open: Array<{ memory: TenantMemory; vault: TenantVault; dir: string }> = [];

afterEach(async () => {
  for (const o of open.splice(0)) {
    o.memory.close();
    await o.vault.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function setup(hash?: Sha8) {
  const dir = mkdtempSync(join(tmpdir(), "mrt-memory-"));
  const vault = new TenantVault(dir);
  const clock = new ManualClock();
  const memory = new TenantMemory({ tenantId: TENANT, vault, clock, dims: 4, hash });
  open.push({ memory, vault, dir });
  return { memory, vault, clock };
}

async function create(memory: TenantMemory, draft: EntryDraft, extra: Partial<CreateEntry> = {}) {
  const written = memory.writer.create({ draft, createdBy: "agent", ...extra });
  await written.committed;
  return written;
}

/** The identity of a fact written by "agent" with only content and valid_from (CONTRACT §2). */
const identityText = (content: string, valid_from: string) =>
  canonicalJson({
    tenant: TENANT,
    category: "fact",
    body: { content, valid_from, valid_to: null, agent_id: "agent" },
  });

describe("TenantMemory ids", () => {
  test("a forced collision gives the second entry the deterministic next candidate", async () => {
    // Every first candidate collides on deadbeef; suffixed candidates hash for real.
    const hash: Sha8 = (text) => (/#\d+$/.test(text) ? sha8(text) : "deadbeef");
    const { memory, vault } = setup(hash);
    const valid_from = "2025-01-01T00:00:00.000Z";
    const one = await create(memory, { category: "fact", content: "one", valid_from });
    expect(one.status).toBe(201);
    expect(one.entry.id).toBe("deadbeef");
    const two = await create(memory, { category: "fact", content: "two", valid_from });
    expect(two.status).toBe(201);
    expect(two.entry.id).toBe(sha8(`${identityText("two", valid_from)}#1`));
    // The same content again is the same entry (taken by itself, not by another).
    const again = await create(memory, { category: "fact", content: "two", valid_from });
    expect(again.status).toBe(200);
    expect(again.entry.id).toBe(two.entry.id);
    const oneAgain = await create(memory, { category: "fact", content: "one", valid_from });
    expect(oneAgain.status).toBe(200);
    expect(oneAgain.entry.id).toBe("deadbeef");
    expect(vault.counters.entryCount()).toBe(2);
  });

  test("without collisions the id is the sha8 of the canonical content", async () => {
    const { memory } = setup();
    const valid_from = "2025-01-01T00:00:00.000Z";
    const e = await create(memory, { category: "fact", content: "plain", valid_from });
    expect(e.entry.id).toBe(sha8(identityText("plain", valid_from)));
  });
});

describe("TenantMemory idempotency", () => {
  test("a key answers with the first entry within 24 h, and no longer after", async () => {
    const { memory, clock } = setup();
    const first = await create(memory, { category: "fact", content: "first" }, { idempotencyKey: "k" });
    expect(first.status).toBe(201);
    clock.advance(IDEMPOTENCY_TTL_MS - 1);
    const replay = await create(memory, { category: "fact", content: "first" }, { idempotencyKey: "k" });
    expect(replay.status).toBe(200);
    expect(replay.entry.id).toBe(first.entry.id);
    await expect(
      create(memory, { category: "fact", content: "second" }, { idempotencyKey: "k" }),
    ).rejects.toThrow(IdempotencyMismatch);
    clock.advance(1);
    const fresh = await create(memory, { category: "fact", content: "second" }, { idempotencyKey: "k" });
    expect(fresh.status).toBe(201);
    expect(fresh.entry.id).not.toBe(first.entry.id);
  });

  test("a replay before the first write has committed still answers with the first entry", () => {
    const { memory } = setup();
    const first = memory.writer.create({
      draft: { category: "fact", content: "a" },
      createdBy: "x",
      idempotencyKey: "same",
    });
    const second = memory.writer.create({
      draft: { category: "fact", content: "a" },
      createdBy: "x",
      idempotencyKey: "same",
    });
    expect(second.status).toBe(200);
    expect(second.entry.id).toBe(first.entry.id);
    return Promise.all([first.committed, second.committed]);
  });
});

describe("TenantMemory lists and search", () => {
  test("reads its own uncommitted writes in lists", () => {
    const { memory, clock } = setup();
    const a = memory.writer.create({ draft: { category: "fact", content: "a" }, createdBy: "x" });
    const b = memory.writer.create({ draft: { category: "fact", content: "b" }, createdBy: "x" });
    const page = memory.query.list({
      category: "fact",
      limit: 10,
      validAt: clock.now(),
      asOf: clock.now(),
      includeEmbedding: false,
    });
    expect(page.items.map((e) => e.id)).toEqual([b.entry.id, a.entry.id]);
    return Promise.all([a.committed, b.committed]);
  });

  test("vectors written before a crash are back in the index after reopening", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-memory-"));
    const clock = new ManualClock();
    const vault = new TenantVault(dir);
    const memory = new TenantMemory({ tenantId: TENANT, vault, clock, dims: 4 });
    const e = await create(
      memory,
      { category: "fact", content: "vec" },
      { vector: new Float32Array([1, 0, 0, 0]) },
    );
    // A crash: the index file is never saved; only the vault committed.
    memory.indexes.vectors.close();
    await vault.close();
    const vault2 = new TenantVault(dir);
    const memory2 = new TenantMemory({ tenantId: TENANT, vault: vault2, clock, dims: 4 });
    open.push({ memory: memory2, vault: vault2, dir });
    expect(memory2.indexes.vectors.has(e.entry.id)).toBe(true);
    const hits = memory2.search.search({
      vector: new Float32Array([1, 0, 0, 0]),
      categories: ["fact"],
      tags: [],
      tagsAny: [],
      validAt: clock.now(),
      asOf: clock.now(),
      limit: 5,
    });
    expect(hits.map((x) => x.entry.id)).toEqual([e.entry.id]);
  });

  test("the saved indexes are read back and caught up from what was written after them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-memory-"));
    const clock = new ManualClock();
    const search = (m: TenantMemory, text: string) =>
      m.search
        .search({
          text,
          categories: ["fact"],
          tags: [],
          tagsAny: [],
          validAt: clock.now(),
          asOf: clock.now(),
          limit: 5,
        })
        .map((x) => x.entry.content);
    const vault = new TenantVault(dir);
    const memory = new TenantMemory({ tenantId: TENANT, vault, clock, dims: 4 });
    const vec = (x: number) => ({ vector: new Float32Array([x, 1, 0, 0]) });
    await create(memory, { category: "fact", content: "alpha quokka" }, vec(1));
    expect(search(memory, "quokka")).toEqual(["alpha quokka"]);
    memory.close();
    await vault.close();
    // Reopened: the saved files are read, and an entry written after them (whose index save a
    // crash lost) is caught up from the vault and the change log.
    const vault2 = new TenantVault(dir);
    const memory2 = new TenantMemory({ tenantId: TENANT, vault: vault2, clock, dims: 4 });
    await create(memory2, { category: "fact", content: "beta quokka" }, vec(2));
    memory2.indexes.vectors.close();
    await vault2.close();
    const vault3 = new TenantVault(dir);
    const memory3 = new TenantMemory({ tenantId: TENANT, vault: vault3, clock, dims: 4 });
    open.push({ memory: memory3, vault: vault3, dir });
    expect(search(memory3, "quokka").sort()).toEqual(["alpha quokka", "beta quokka"]);
    expect(memory3.indexes.vectors.size).toBe(2);
  });
});
