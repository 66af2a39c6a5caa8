import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntryStore } from "../../../../actors/tenant/memory/entry-store.ts";
import type { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import { CATEGORIES } from "../../../../src/models/category.ts";
import type { ManualClock } from "../../../../src/runtime/clock.ts";
import type { TenantVault } from "../../../../src/vault/tenant-vault.ts";
import { openTenantMemory } from "./open-memory.ts";

/**
 * The entity index is built after an open, off the search path (entity-store.ts): a search right
 * after the open reads no entry for it and follows no entity; once built, the hops work; writes
 * and erasures during the build are neither lost nor counted twice.
 */
const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
const opened: Array<{ memory: TenantMemory; vault: TenantVault }> = [];

/** Entries read from the vault by whole-table reads (`all`) and by the build's pages. */
let entriesRead = 0;
const all = EntryStore.prototype.all;
EntryStore.prototype.all = function* (this: EntryStore) {
  for (const stored of all.call(this)) {
    entriesRead++;
    yield stored;
  }
};
const page = EntryStore.prototype.page;
EntryStore.prototype.page = function (this: EntryStore, after: number, limit: number) {
  const read = page.call(this, after, limit);
  entriesRead += read.length;
  return read;
};

afterEach(async () => {
  for (const o of opened.splice(0)) {
    o.memory.close();
    await o.vault.close();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(dir: string) {
  const o = openTenantMemory(TENANT, dir);
  opened.push(o);
  return o;
}

async function reopen(o: { memory: TenantMemory; vault: TenantVault }, dir: string) {
  opened.splice(opened.indexOf(o), 1);
  o.memory.close();
  await o.vault.close();
  return open(dir);
}

async function write(memory: TenantMemory, content: string): Promise<string> {
  const written = memory.writer.create({ draft: { category: "fact", content }, createdBy: "a" });
  await written.committed;
  return written.entry.id;
}

function search(o: { memory: TenantMemory; clock: ManualClock }, text: string) {
  const now = o.clock.now();
  const msg = { text, categories: [...CATEGORIES], tags: [], tagsAny: [], validAt: now, asOf: now, limit: 3 };
  return o.memory.search.search({ ...msg, controls: { explain: true } });
}

/** The husky scenario of test/routes/memory-entities.test.ts: answers the two evidence ids. */
async function husky(memory: TenantMemory) {
  const dog = await write(memory, "Soren: my new dog is a Siberian husky called Noodle, she is lovely");
  const trick = await write(memory, "Soren: you won't believe it, Noodle learned to ring a bell");
  for (let i = 0; i < 12; i++) await write(memory, `Jamal: my cousin's parrot learned trick number ${i}`);
  return { dog, trick };
}

const QUESTION = "What trick did Soren's Siberian husky learn?";

describe("the entity index built after an open", () => {
  test("a search right after the open reads no entry for it and answers; after the build the hops work", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-entity-build-"));
    dirs.push(dir);
    const first = open(dir);
    const { dog, trick } = await husky(first.memory);
    const o = await reopen(first, dir);
    expect(o.memory.indexes.entities.ready).toBe(false);
    entriesRead = 0;
    const early = search(o, QUESTION);
    expect(entriesRead).toBe(0);
    expect(early.map((r) => r.entry.id)).toContain(dog);
    expect(early[0]!.explain?.entities).toBe("building");
    // The actor's index flush builds it, a chunk a turn.
    while (!o.memory.indexes.entities.ready) o.memory.flush.run(false);
    expect(entriesRead).toBe(14);
    entriesRead = 0;
    const late = search(o, QUESTION);
    expect(entriesRead).toBe(0);
    expect(late[0]!.entry.id).toBe(dog);
    expect(late[0]!.explain).toMatchObject({ entities: ["siberian"], hop: 1 });
    expect(late.find((r) => r.entry.id === trick)?.explain).toMatchObject({ entities: ["noodle"], hop: 2 });
  });

  test("a write during the build is in the index once, an entry erased during it is not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-entity-build-"));
    dirs.push(dir);
    const first = open(dir);
    const { dog, trick } = await husky(first.memory);
    const o = await reopen(first, dir);
    const store = o.memory.indexes.entities;
    expect(store.step(1)).toBe(false);
    const late = await write(o.memory, "Soren walked Noodle past the Ravenholt lighthouse");
    // Erased while the build runs (its commit still on the way: the vault's table still holds it).
    o.memory.indexes.forget(new Set([trick]));
    while (!store.step(2));
    const index = store.current();
    expect(index.entriesOf("ravenholt")).toEqual([late]);
    expect([...index.entriesOf("noodle")].sort()).toEqual([dog, late].sort());
    expect(index.entitiesOf(trick)).toEqual([]);
    expect(index.size).toBe(14);
  });
});
