import { afterEach, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntryStore } from "../../../../actors/tenant/memory/entry-store.ts";
import { LEXICAL_SCHEME } from "../../../../actors/tenant/memory/lexical-document.ts";
import { TENANT_LEXICAL_JOURNAL } from "../../../../actors/tenant/memory/lexical-store.ts";
import type { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import { CATEGORIES } from "../../../../src/models/category.ts";
import type { ManualClock } from "../../../../src/runtime/clock.ts";
import { LexicalIndex } from "../../../../src/search/lexical/lexical-index.ts";
import { TENANT_LEXICAL_FILE } from "../../../../src/search/vector/index-tuning.ts";
import { TenantVault } from "../../../../src/vault/tenant-vault.ts";
import { openTenantMemory } from "./open-memory.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
const opened: Array<{ memory: TenantMemory; vault: TenantVault; closed?: boolean }> = [];
/**
 * Calls of EntryStore.all: a lexical open that reads every entry (a build) makes one. The entity
 * index's build reads the vault in pages (`EntryStore.page`, entity-store.ts), never through `all`,
 * so every call counted here is the lexical store's.
 */
let fullReads = 0;
const all = EntryStore.prototype.all;
EntryStore.prototype.all = function* (this: EntryStore) {
  fullReads++;
  yield* all.call(this);
};

afterEach(async () => {
  for (const o of opened.splice(0)) if (!o.closed) await closeMemory(o);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function closeMemory(o: { memory: TenantMemory; vault: TenantVault; closed?: boolean }) {
  o.closed = true;
  o.memory.close();
  await o.vault.close();
}

/** The process dies: the vault closes (its commits are durable), the indexes are not saved. */
async function crash(o: { vault: TenantVault; closed?: boolean }) {
  o.closed = true;
  await o.vault.close();
}

function openMemory(dir: string) {
  const o = openTenantMemory(TENANT, dir);
  opened.push(o);
  return o;
}

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-lexical-store-"));
  dirs.push(dir);
  return dir;
}

/** `count` facts in one batch, each with its own word `w<from + i>x`; answers their ids. */
async function batch(memory: TenantMemory, from: number, count: number): Promise<string[]> {
  const drafts = Array.from({ length: count }, (_, i) => ({
    category: "fact" as const,
    content: `note w${from + i}x about the shared topic`,
  }));
  const written = memory.writer.createMany({ drafts, createdBy: "agent", vectors: [] });
  await written.committed;
  return written.reply.entries.map((e) => e.id);
}

async function single(memory: TenantMemory, word: string): Promise<string> {
  const written = memory.writer.create({
    draft: { category: "fact", content: `a note on ${word}` },
    createdBy: "a",
  });
  await written.committed;
  return written.entry.id;
}

function search(o: { memory: TenantMemory; clock: ManualClock }, text: string): string[] {
  const now = o.clock.now();
  const msg = {
    text,
    categories: [...CATEGORIES],
    tags: [],
    tagsAny: [],
    validAt: now,
    asOf: now,
    limit: 10,
  };
  return o.memory.search.search(msg).map((r) => r.entry.id);
}

describe("LexicalStore: the BM25 index kept current and saved as it grows", () => {
  test("a bulk load's words are searchable without a build, and a close saves them", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    const ids = await batch(first.memory, 0, 50);
    fullReads = 0;
    expect(search(first, "w7x")).toEqual([ids[7]!]);
    expect(fullReads).toBe(0);
    await closeMemory(first);
    expect(existsSync(join(dir, TENANT_LEXICAL_FILE))).toBe(true);
    const again = openMemory(dir);
    expect(search(again, "w49x")).toEqual([ids[49]!]);
    expect(fullReads).toBe(0);
  });

  test("after a crash: the full save, the journal and the change log give every word back, no entry read twice", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    const early = await batch(first.memory, 0, 1000);
    // Between messages, with 1,000 documents waiting: the first save is a full one.
    first.memory.indexes.flush();
    expect(existsSync(join(dir, TENANT_LEXICAL_FILE))).toBe(true);
    const middle = await batch(first.memory, 1000, 1000);
    first.memory.indexes.flush();
    // Then the journal grows.
    expect(statSync(join(dir, TENANT_LEXICAL_JOURNAL)).size).toBeGreaterThan(0);
    const late = await single(first.memory, "zlatex");
    await crash(first);

    fullReads = 0;
    const again = openMemory(dir);
    expect(search(again, "w3x")).toEqual([early[3]!]);
    expect(search(again, "w1500x")).toEqual([middle[500]!]);
    expect(search(again, "zlatex")).toEqual([late]);
    expect(fullReads).toBe(0);
    const later = await single(again.memory, "zafterx");
    expect(search(again, "zafterx")).toEqual([later]);
  });

  test("a save made in the middle of a batch holds its watermark before the batch: a crash loses none of it", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    await batch(first.memory, 0, 500);
    // The 10,000th document waiting (the 9,500th of this batch) saves the index mid-batch.
    const big = await batch(first.memory, 500, 10_000);
    expect(existsSync(join(dir, TENANT_LEXICAL_FILE))).toBe(true);
    await crash(first);

    fullReads = 0;
    const again = openMemory(dir);
    expect(search(again, "w10499x")).toEqual([big[9999]!]);
    expect(search(again, "w600x")).toEqual([big[100]!]);
    expect(fullReads).toBe(0);
  }, 30_000);

  test("a torn journal tail is dropped and its documents caught up from the change log", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    await batch(first.memory, 0, 1000);
    first.memory.indexes.flush();
    const middle = await batch(first.memory, 1000, 1000);
    first.memory.indexes.flush();
    await crash(first);
    const journal = join(dir, TENANT_LEXICAL_JOURNAL);
    truncateSync(journal, statSync(journal).size - 5);

    fullReads = 0;
    const again = openMemory(dir);
    expect(search(again, "w1999x")).toEqual([middle[999]!]);
    expect(fullReads).toBe(0);
    await closeMemory(again);
    // The open saved the index whole: the next open reads it as it is.
    const third = openMemory(dir);
    expect(search(third, "w1000x")).toEqual([middle[0]!]);
    expect(fullReads).toBe(0);
  });

  test("a saved index of the previous format (watermark in the vault) is read and saved anew, not rebuilt", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    const ids = await batch(first.memory, 0, 20);
    await closeMemory(first);
    // What the previous release left: its file format and the watermark in the vault.
    const current = LexicalIndex.read(readFileSync(join(dir, TENANT_LEXICAL_FILE)), {
      scheme: LEXICAL_SCHEME,
    });
    rmSync(join(dir, TENANT_LEXICAL_FILE));
    rmSync(join(dir, TENANT_LEXICAL_JOURNAL), { force: true });
    writeFileSync(join(dir, TENANT_LEXICAL_FILE), formatTwo(current.index, ids));
    const vault = new TenantVault(dir);
    await vault.setIndexedThrough(TENANT_LEXICAL_FILE, current.stamp.watermark);
    await vault.close();

    fullReads = 0;
    const again = openMemory(dir);
    expect(search(again, "w11x")).toEqual([ids[11]!]);
    expect(fullReads).toBe(0);
    const saved = readFileSync(join(dir, TENANT_LEXICAL_FILE));
    expect(saved.readUInt32LE(4)).toBe(3);
  });

  test("after an erasure the erased words are gone, in memory and in the saved files", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    const ids = await batch(first.memory, 0, 10);
    first.memory.indexes.forget(new Set([ids[0]!]));
    expect(existsSync(join(dir, TENANT_LEXICAL_FILE))).toBe(false);
    expect(existsSync(join(dir, TENANT_LEXICAL_JOURNAL))).toBe(false);
    // The index is made again from the vault at its next use (here the entry is still stored).
    expect(search(first, "w5x")).toEqual([ids[5]!]);
  });
});

/** An index as format 2 wrote it: u32 (doc, tf) pairs of the index's own postings. */
function formatTwo(index: LexicalIndex, ids: string[]): Uint8Array {
  // The index's own bytes give its terms and postings; rebuilding them in format 2 needs the pairs.
  const probe = index as unknown as {
    termNames: string[];
    postings: { decode(t: number, v: (doc: number, tf: number) => void): void };
    docLengths: Uint32Array;
    totalLength: number;
    signature: string;
  };
  const sig = Buffer.from(probe.signature);
  const header = Buffer.alloc(26);
  header.writeUInt32LE(0x584c4d54, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(ids.length, 8);
  header.writeUInt32LE(probe.termNames.length, 12);
  header.writeDoubleLE(probe.totalLength, 16);
  header.writeUInt16LE(sig.length, 24);
  const chunks: Buffer[] = [header, sig];
  for (let doc = 0; doc < ids.length; doc++) chunks.push(Buffer.from(idAt(index, doc), "latin1"));
  for (let doc = 0; doc < ids.length; doc++) chunks.push(u32(probe.docLengths[doc]!));
  probe.termNames.forEach((term, t) => {
    const pairs: number[] = [];
    probe.postings.decode(t, (doc, tf) => pairs.push(doc, tf));
    const bytes = Buffer.from(term, "utf8");
    const size = Buffer.alloc(2);
    size.writeUInt16LE(bytes.length, 0);
    chunks.push(size, bytes, u32(pairs.length / 2), ...pairs.map(u32));
  });
  return Buffer.concat(chunks);
}

function idAt(index: LexicalIndex, doc: number): string {
  return (index as unknown as { ids: { idOf(doc: number): string } }).ids.idOf(doc);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value, 0);
  return out;
}
