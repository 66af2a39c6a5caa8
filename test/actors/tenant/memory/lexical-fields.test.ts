import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  dataText,
  FIELD_WEIGHTS,
  lexicalDocument,
} from "../../../../actors/tenant/memory/lexical-document.ts";
import type { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import { CATEGORIES } from "../../../../src/models/category.ts";
import type { Entry, EntryDraft } from "../../../../src/models/entry.ts";
import type { ManualClock } from "../../../../src/runtime/clock.ts";
import { LexicalIndex } from "../../../../src/search/lexical/lexical-index.ts";
import { TENANT_LEXICAL_FILE } from "../../../../src/search/vector/index-tuning.ts";
import type { TenantVault } from "../../../../src/vault/tenant-vault.ts";
import { openTenantMemory } from "./open-memory.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const dirs: string[] = [];
const opened: Array<{ memory: TenantMemory; vault: TenantVault }> = [];

afterEach(async () => {
  for (const o of opened.splice(0)) await closeMemory(o);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function closeMemory(o: { memory: TenantMemory; vault: TenantVault }) {
  o.memory.close();
  await o.vault.close();
}

function openMemory(dir: string) {
  const o = openTenantMemory(TENANT, dir);
  opened.push(o);
  return o;
}

function newDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-lexical-"));
  dirs.push(dir);
  return dir;
}

async function write(memory: TenantMemory, draft: EntryDraft): Promise<string> {
  const written = memory.writer.create({ draft, createdBy: "agent" });
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

describe("lexicalDocument: what of an entry BM25 indexes", () => {
  test("content, tags, naming fields at full weight; describing fields and the source at half; data at a quarter", () => {
    const entry = {
      category: "relationship",
      content: "Acme buys from Globex",
      tags: ["supplier", "q3"],
      subject: "Acme",
      predicate: "buys from",
      object: "Globex",
      source: { system: "stripe", event_type: "invoice.paid" },
      data: { secret_code: "zebra" },
      severity: "high",
    } as unknown as Entry;
    expect(lexicalDocument(entry)).toEqual([
      { text: "Acme buys from Globex", weight: 1 },
      { text: "supplier\nq3", weight: FIELD_WEIGHTS.tags },
      { text: "Acme", weight: 1 },
      { text: "Globex", weight: 1 },
      { text: "buys from", weight: 0.5 },
      { text: "stripe\ninvoice.paid", weight: 0.5 },
      { text: "zebra", weight: 0.25 },
    ]);
  });
});

test("another entry's subject is its scope's id, not words: left out", () => {
  const entry = { category: "fact", content: "Prefers tea", subject: "user-42", session_id: "s1" };
  expect(lexicalDocument(entry as unknown as Entry)).toEqual([{ text: "Prefers tea", weight: 1 }]);
});

describe("dataText: the words of `data` BM25 indexes", () => {
  test("text values and lists at the top level and one level down, without identifiers", () => {
    const data = {
      customer: "cus_Q1w2E3",
      customer_name: "Acme Ltd",
      customer_id: "8447388090495",
      id: "pi_1",
      amount: 49.99,
      contacts: ["Ada Lovelace", 7],
      customer_object: { name: "Acme Ltd", email: "billing@acme.test", address: { city: "Lyon" } },
    };
    expect(dataText(data)).toBe("cus_Q1w2E3\nAcme Ltd\nAda Lovelace\nAcme Ltd\nbilling@acme.test");
    expect(dataText({ amount: 1, nested: { deeper: { deepest: "x" } } })).toBeUndefined();
    expect(dataText(undefined)).toBeUndefined();
  });

  test("each value and the whole are bounded", () => {
    const long = "word ".repeat(200);
    const text = dataText(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, long])))!;
    expect(text.split("\n").every((value) => value.length <= 256)).toBe(true);
    expect(text.length).toBeLessThanOrEqual(2048 + 20);
  });
});

describe("the tenant's BM25 index", () => {
  test("finds entries by a tag, a relationship's object, a decision's choice, and data below content", async () => {
    const o = openMemory(newDir());
    const tagged = await write(o.memory, {
      category: "fact",
      content: "Quarterly review notes",
      tags: ["billing"],
    });
    const related = await write(o.memory, {
      category: "relationship",
      content: "A new supplier",
      subject: "Acme",
      predicate: "buys from",
      object: "Globex",
    });
    const decided = await write(o.memory, {
      category: "decision",
      content: "Hosting picked",
      chosen: "Hetzner",
      options: ["Hetzner", "Linode"],
    });
    const inData = await write(o.memory, {
      category: "fact",
      content: "Lunch menu",
      data: { code: "zebra" },
    });
    const inContent = await write(o.memory, {
      category: "fact",
      content: "The zebra crossing was repainted",
    });
    expect(search(o, "billing")).toEqual([tagged]);
    expect(search(o, "globex")).toEqual([related]);
    expect(search(o, "hetzner")).toEqual([decided]);
    expect(search(o, "zebra")).toEqual([inContent, inData]);
  });

  test("a saved index of other fields or analyzer is rebuilt at open, not read", async () => {
    const dir = newDir();
    const first = openMemory(dir);
    const id = await write(first.memory, { category: "fact", content: "The runners paid for new shoes" });
    expect(search(first, "running shoe")).toEqual([id]);
    await closeMemory(opened.pop()!);
    // A well-formed index under another scheme, holding other words for the same entry.
    const stale = new LexicalIndex({ scheme: "entry fields of an earlier release" });
    stale.add(id, "zebra");
    writeFileSync(join(dir, TENANT_LEXICAL_FILE), stale.toBytes());
    const again = openMemory(dir);
    expect(search(again, "zebra")).toEqual([]);
    expect(search(again, "pay run")).toEqual([id]);
  });
});
