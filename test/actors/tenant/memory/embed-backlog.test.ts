/**
 * The tenant's embedding backlog (actors/tenant/memory/embed-backlog.ts) and the embedder check at
 * open (embedder-check.ts), on a real vault, with a background embedder the test drives by hand:
 * what each write set carries (one transaction each), that no entry gets two vectors, and what a
 * change of embedder does to the vault.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import type {
  BackgroundEmbedding,
  EmbedderState,
  EmbedQueue,
} from "../../../../src/embedding/embed-scheduler.ts";
import { ManualClock } from "../../../../src/runtime/clock.ts";
import { embedderStamp } from "../../../../src/vault/embedding-records.ts";
import { storedCount } from "../../../../src/vault/tables.ts";
import { TenantVault, type WriteSet } from "../../../../src/vault/tenant-vault.ts";
import { writableTables } from "../../../helpers/vault-tables.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const DIMS = 4;
const dirs: string[] = [];
const opened: Array<{ memory: TenantMemory; vault: TenantVault }> = [];

afterEach(async () => {
  for (const o of opened.splice(0)) {
    o.memory.close();
    await o.vault.close();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A background embedder the test drives: it records wakes; the test takes and brings vectors. */
class DrivenEmbedding implements BackgroundEmbedding {
  queue: EmbedQueue | undefined;
  wakes = 0;
  constructor(
    readonly signature = `hash/${DIMS}`,
    readonly canEmbed = true,
  ) {}
  attach(_tenantId: string, queue: EmbedQueue): () => void {
    this.queue = queue;
    return () => {
      this.queue = undefined;
    };
  }
  wake(): void {
    this.wakes++;
  }
  state(): EmbedderState {
    return { kind: "hash", state: "idle", in_flight: 0, embedded: 0, failures: 0 };
  }
}

const unit = (i: number) => Float32Array.from({ length: DIMS }, (_, k) => (k === i % DIMS ? 1 : 0));

/**
 * Opens the tenant's memory on `dir`, recording every write set the vault commits; with `hold`,
 * a write resolves only once `hold` does after its local commit (as cluster mode's changelog append).
 */
function open(dir: string, embedding = new DrivenEmbedding(), dims = DIMS, hold?: () => Promise<void>) {
  const sets: WriteSet[] = [];
  const record = (set: WriteSet, commit: (set: WriteSet) => Promise<void>) => {
    sets.push(set);
    return hold ? commit(set).then(hold) : commit(set);
  };
  const vault = new TenantVault(dir, { writeThrough: record });
  const clock = new ManualClock();
  const memory = new TenantMemory({
    tenantId: TENANT,
    vault,
    clock,
    dims,
    background: {
      embedding,
      storeVectors: (items, vectors) => memory.backlog!.store(items, vectors),
    },
  });
  opened.push({ memory, vault });
  return { memory, vault, embedding, sets, clock };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mrt-backlog-"));
  dirs.push(dir);
  return dir;
}

async function write(memory: TenantMemory, content: string, vector?: Float32Array): Promise<string> {
  const written = memory.writer.create({ draft: { category: "fact", content }, createdBy: "agent", vector });
  await written.committed;
  return written.entry.id;
}

async function close(o: { memory: TenantMemory; vault: TenantVault }): Promise<void> {
  opened.splice(opened.indexOf(o), 1);
  o.memory.close();
  await o.vault.close();
}

describe("the backlog: queued with the entry, stored with the removal of its queue record", () => {
  test("an entry written without a vector is queued in its own write set, and the embedder woken", async () => {
    const { memory, embedding, sets } = open(tempDir());
    const id = await write(memory, "the boiler is serviced in spring");
    const set = sets.at(-1)!;
    expect(set.created.map((s) => s.entry.id)).toEqual([id]);
    expect(set.embedding?.queue).toEqual([[set.created[0]!.seq, id]]);
    expect(set.embedding?.stamp).toBe(`hash/${DIMS}`);
    expect(memory.backlog!.pending()).toBe(1);
    expect(embedding.wakes).toBeGreaterThan(0);
  });

  test("an entry written with its vector is not queued", async () => {
    const { memory, sets } = open(tempDir());
    await write(memory, "given a vector", unit(0));
    expect(sets.at(-1)!.embedding?.queue).toBeUndefined();
    expect(memory.backlog!.pending()).toBe(0);
  });

  test("the vector is written with the removal of its queue record, once, and indexed", async () => {
    const { memory, embedding, sets } = open(tempDir());
    const id = await write(memory, "parking permits renew in May");
    const items = embedding.queue!.take(16);
    expect(items).toEqual([{ seq: sets.at(-1)!.created[0]!.seq, id, text: "parking permits renew in May" }]);
    const before = sets.length;
    await memory.backlog!.store(items, [unit(1)]);
    expect(sets.slice(before).map((s) => s.embedding)).toEqual([{ done: [[items[0]!.seq, id, unit(1)]] }]);
    expect(memory.backlog!.pending()).toBe(0);
    expect(memory.entries.vector(id)).toEqual(unit(1));
    expect(memory.indexes.vectors.has(id)).toBe(true);

    // The same vector brought again (a batch retried after its answer was lost): nothing is written.
    await memory.backlog!.store(items, [unit(2)]);
    expect(sets.length).toBe(before + 1);
    expect(memory.entries.vector(id)).toEqual(unit(1));
  });

  test("items are taken oldest first, never twice while in flight; a failed batch's items go alone", async () => {
    const { memory, embedding } = open(tempDir());
    const ids: string[] = [];
    for (const content of ["one fact", "two facts", "three facts"]) ids.push(await write(memory, content));
    const queue = embedding.queue!;
    const first = queue.take(2);
    expect(first.map((i) => i.id)).toEqual(ids.slice(0, 2));
    expect(queue.take(2).map((i) => i.id)).toEqual(ids.slice(2));
    expect(queue.take(2)).toEqual([]);
    queue.failed(first);
    // So that a text the embedder refuses fails only itself.
    expect(queue.take(5).map((i) => i.id)).toEqual(ids.slice(0, 1));
    expect(queue.take(5).map((i) => i.id)).toEqual(ids.slice(1, 2));
  });

  test("an item failing alone waits, longer each time, while the items after it go first", async () => {
    const { memory, embedding, clock } = open(tempDir());
    const bad = await write(memory, "a text the service refuses");
    const queue = embedding.queue!;
    const wakes = () => embedding.wakes;
    for (const wait of [1000, 2000, 4000]) {
      const [item] = queue.take(16);
      expect(item!.id).toBe(bad);
      queue.failed([item!]);
      expect(queue.take(16)).toEqual([]);
      const good = await write(memory, `a fine text ${wait}`);
      expect(queue.take(16).map((i) => i.id)).toEqual([good]);
      clock.advance(wait - 1);
      const before = wakes();
      clock.advance(1);
      // Woken when its wait is over.
      expect(wakes()).toBe(before + 1);
    }
  });

  test("an entry erased while its vector is on its way gets no vector and leaves the queue", async () => {
    const { memory, embedding, vault } = open(tempDir());
    const id = await write(memory, "a private number");
    const items = embedding.queue!.take(1);
    const stored = memory.entries.get(id)!;
    memory.backlog!.forget([id]);
    const erasure = { entries: [stored], tombstones: [], deadLetters: [], idempotency: [] };
    await vault.write({ entries: [], created: [], erase: erasure });
    await memory.backlog!.store(items, [unit(0)]);
    expect(memory.backlog!.pending()).toBe(0);
    expect(memory.entries.vector(id)).toBeUndefined();
    expect(memory.indexes.vectors.has(id)).toBe(false);
  });

  test("a restart resumes: the committed queue is taken again, what was in flight included", async () => {
    const dir = tempDir();
    const first = open(dir);
    const id = await write(first.memory, "keys are at reception");
    expect(first.embedding.queue!.take(1)).toHaveLength(1);
    await close(first);
    const second = open(dir);
    expect(second.memory.backlog!.pending()).toBe(1);
    const items = second.embedding.queue!.take(16);
    expect(items.map((i) => i.id)).toEqual([id]);
    await second.memory.backlog!.store(items, [unit(3)]);
    expect(second.memory.backlog!.pending()).toBe(0);
  });

  test("under `client` nothing is queued (callers send vectors), but the embedder is recorded", async () => {
    const { memory, vault, sets } = open(tempDir(), new DrivenEmbedding(`client/${DIMS}`, false));
    await write(memory, "a webhook's entry, without a vector");
    expect(sets.at(-1)!.embedding).toEqual({ stamp: `client/${DIMS}` });
    expect(memory.backlog!.pending()).toBe(0);
    expect(embedderStamp(vault.tablesOf("vault").meta)).toBe(`client/${DIMS}`);
  });
});

/** A write-through hold: `committed` resolves once a write's local commit has; the write waits for `release`. */
function heldCommit() {
  const committed = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const hold = () => {
    committed.resolve();
    return release.promise;
  };
  return { hold, committed: committed.promise, release: () => release.resolve() };
}

/** `dir`'s vault as one of before the embedder record (or an import): no stamp, no queue records. */
async function unrecorded(dir: string): Promise<void> {
  const legacy = new TenantVault(dir);
  const { meta, embedQueue } = { ...writableTables(legacy, "vault"), ...writableTables(legacy, "memory") };
  await meta.remove(`embedder:hash/${DIMS}`);
  await embedQueue.clearAsync();
  await legacy.close();
}

describe("pending counts each queue record once, while its commit shows and its write has not settled", () => {
  test("a write's queue record", async () => {
    const held = heldCommit();
    const { memory, vault } = open(tempDir(), undefined, undefined, held.hold);
    const written = write(memory, "the lift is inspected in June");
    await held.committed;
    expect(storedCount(vault.tablesOf("memory").embedQueue)).toBe(1);
    expect(memory.backlog!.pending()).toBe(1);
    held.release();
    await written;
    expect(memory.backlog!.pending()).toBe(1);
  });

  test("the queue records the opening of a vault writes", async () => {
    const dir = tempDir();
    const first = open(dir);
    await write(first.memory, "alpha fact");
    await write(first.memory, "beta fact");
    await close(first);
    await unrecorded(dir);
    const held = heldCommit();
    const { memory, vault } = open(dir, undefined, undefined, held.hold);
    await held.committed;
    expect(storedCount(vault.tablesOf("memory").embedQueue)).toBe(2);
    expect(memory.backlog!.pending()).toBe(2);
    held.release();
  });
});

describe("the embedder check at open", () => {
  async function vaultWithVectors(dir: string, signature = `hash/${DIMS}`) {
    const o = open(dir, new DrivenEmbedding(signature));
    const ids = [await write(o.memory, "alpha fact", unit(0)), await write(o.memory, "beta fact", unit(1))];
    await write(o.memory, "gamma fact");
    await close(o);
    return ids;
  }

  test("the same embedder: nothing is written, the vectors are loaded", async () => {
    const dir = tempDir();
    await vaultWithVectors(dir);
    const { memory, sets } = open(dir);
    expect(sets).toEqual([]);
    expect(memory.indexes.vectors.size).toBe(2);
    expect(memory.backlog!.pending()).toBe(1);
  });

  test("another embedder: its vectors go, every entry is queued, the new one is recorded", async () => {
    const dir = tempDir();
    const ids = await vaultWithVectors(dir);
    const { memory, vault, embedding, sets } = open(dir, new DrivenEmbedding("http/model/8"), 8);
    expect(sets.map((s) => s.embedding)).toEqual([{ reset: { stamp: "http/model/8", requeue: true } }]);
    expect(memory.indexes.vectors.size).toBe(0);
    // Counted at once, taken once the reset has committed.
    expect(memory.backlog!.pending()).toBe(3);
    expect(embedding.queue!.take(16)).toEqual([]);
    await vault.write({ entries: [], created: [] });
    expect(memory.backlog!.pending()).toBe(3);
    expect(memory.entries.vector(ids[0]!)).toBeUndefined();
    expect(embedderStamp(vault.tablesOf("vault").meta)).toBe("http/model/8");
    const items = embedding.queue!.take(16);
    expect(items.map((i) => i.text)).toEqual(["alpha fact", "beta fact", "gamma fact"]);
    await memory.backlog!.store(
      items,
      items.map(() => Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0)),
    );
    expect(memory.indexes.vectors.size).toBe(3);
    expect(memory.backlog!.pending()).toBe(0);
  });

  test("a vault of before the record with vectors of other dimensions is embedded again", async () => {
    const dir = tempDir();
    await vaultWithVectors(dir);
    // As a vault of an earlier version: no embedder recorded.
    const legacy = new TenantVault(dir);
    await writableTables(legacy, "vault").meta.remove(`embedder:hash/${DIMS}`);
    await legacy.close();
    const { memory, sets } = open(dir, new DrivenEmbedding("local/8"), 8);
    expect(sets.map((s) => s.embedding?.reset)).toEqual([{ stamp: "local/8", requeue: true }]);
    expect(memory.backlog!.pending()).toBe(3);
  });

  test("a vault of before the record (or an import) with the same dimensions queues only entries without a vector", async () => {
    const dir = tempDir();
    const ids = await vaultWithVectors(dir);
    await unrecorded(dir);
    const { memory, sets } = open(dir);
    const [set] = sets;
    expect(set!.embedding?.stamp).toBe(`hash/${DIMS}`);
    expect(set!.embedding?.queue?.map(([, id]) => id)).toHaveLength(1);
    expect(set!.embedding?.queue?.map(([, id]) => id)).not.toContain(ids[0]);
    expect(memory.indexes.vectors.size).toBe(2);
  });

  test("a new vault records its embedder with its first entry, not before", async () => {
    const { memory, vault, sets } = open(tempDir());
    expect(sets).toEqual([]);
    expect(embedderStamp(vault.tablesOf("vault").meta)).toBeUndefined();
    await write(memory, "first", unit(0));
    expect(embedderStamp(vault.tablesOf("vault").meta)).toBe(`hash/${DIMS}`);
    await write(memory, "second", unit(1));
    expect(sets.at(-1)!.embedding).toBeUndefined();
  });
});
