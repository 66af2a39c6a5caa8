/**
 * The background embedder's records in write sets (src/vault/embedding-records.ts): they travel as
 * cluster mode's changelog encodes write sets, and replaying the sets on an empty vault rebuilds
 * the same backlog, vectors and embedder stamp (a reset included) as on the vault that wrote them.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeWriteSet, encodeWriteSet } from "../../src/cluster/changelog.ts";
import type { StoredEntry } from "../../src/models/stored-entry.ts";
import { embedderStamp } from "../../src/vault/embedding-records.ts";
import { TenantVault, type WriteSet } from "../../src/vault/tenant-vault.ts";
import { vectorRecordId, vectorRecordVector } from "../../src/vault/vector-records.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempVault(sets?: WriteSet[]): TenantVault {
  const dir = mkdtempSync(join(tmpdir(), "mrt-embedding-records-"));
  dirs.push(dir);
  const record = (set: WriteSet, commit: (set: WriteSet) => Promise<void>) => {
    sets?.push(set);
    return commit(set);
  };
  return new TenantVault(dir, { writeThrough: record });
}

function stored(seq: number, id: string, content: string): StoredEntry {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    seq,
    entry: {
      id,
      tenant_id: "01JDB2X6J3KQ5W8Z3M4N7P9R2S",
      category: "fact",
      content,
      recorded_at: at,
      valid_from: at,
      valid_to: null,
      expired_at: null,
      invalidated_at: null,
      created_by: "agent",
    },
  } as unknown as StoredEntry;
}

/** What a vault holds of the backlog: queue records, vectors by sequence, the stamp. */
function backlogOf(vault: TenantVault) {
  const memory = vault.tablesOf("memory");
  return {
    queue: [...memory.embedQueue.getRange()].map(({ key, value }) => [key, value]),
    vectors: [...memory.embeddings.getRange()].map(({ key, value }) => [
      key,
      vectorRecordId(value),
      Array.from(vectorRecordVector(value)),
    ]),
    stamp: embedderStamp(vault.tablesOf("vault").meta),
  };
}

describe("the embedding part of write sets", () => {
  test("replayed from the changelog's encoding, it rebuilds the same backlog, vectors and stamp", async () => {
    const sets: WriteSet[] = [];
    const source = tempVault(sets);
    const a = stored(1, "aaaaaaaa", "alpha");
    const b = stored(2, "bbbbbbbb", "beta");
    await source.write({
      entries: [a, b],
      created: [a, b],
      embedding: {
        stamp: "http/m/2",
        queue: [
          [1, "aaaaaaaa"],
          [2, "bbbbbbbb"],
        ],
      },
    });
    await source.write({
      entries: [],
      created: [],
      embedding: { done: [[1, "aaaaaaaa", Float32Array.of(0.6, 0.8)]] },
    });
    expect(backlogOf(source)).toEqual({
      queue: [[2, "bbbbbbbb"]],
      vectors: [[1, "aaaaaaaa", Array.from(Float32Array.of(0.6, 0.8))]],
      stamp: "http/m/2",
    });
    // The embedder changed: every vector goes, every entry is queued again.
    await source.write({
      entries: [],
      created: [],
      embedding: { reset: { stamp: "local/512", requeue: true } },
    });
    const expected = {
      queue: [
        [1, "aaaaaaaa"],
        [2, "bbbbbbbb"],
      ],
      vectors: [],
      stamp: "local/512",
    };
    expect(backlogOf(source)).toEqual(expected);

    const replica = tempVault();
    for (const set of sets) await replica.write(decodeWriteSet(encodeWriteSet(set)));
    expect(backlogOf(replica)).toEqual(expected);
    await source.close();
    await replica.close();
  });

  test("a reset to an embedder that makes no vectors (`client`) queues nothing", async () => {
    const vault = tempVault();
    const a = stored(1, "aaaaaaaa", "alpha");
    await vault.write({ entries: [a], created: [a], vectors: [["aaaaaaaa", Float32Array.of(1, 0)]] });
    await vault.write({
      entries: [],
      created: [],
      embedding: { reset: { stamp: "client/2", requeue: false } },
    });
    expect(backlogOf(vault)).toEqual({ queue: [], vectors: [], stamp: "client/2" });
    await vault.close();
  });

  test("an erased entry leaves the queue with its other records", async () => {
    const vault = tempVault();
    const a = stored(1, "aaaaaaaa", "alpha");
    await vault.write({ entries: [a], created: [a], embedding: { queue: [[1, "aaaaaaaa"]] } });
    const erase = { entries: [a], tombstones: [], deadLetters: [], idempotency: [] };
    await vault.write({ entries: [], created: [], erase });
    expect(backlogOf(vault).queue).toEqual([]);
    await vault.close();
  });
});
