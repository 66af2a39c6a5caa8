/**
 * The storage floor (issue 21, item 1): how fast raw lmdb-js commits exactly the records one entry
 * write puts in the vault's layout, on this machine, with none of the service's JS around them.
 * The service's write figures are reported as ratios to it (write_floor_ratio, batch_floor_ratio).
 *
 * - single: 64 concurrent awaiters, each putting one write's records (putWriteSet's: the entry
 *   under its sequence number, its id → seq record, its index record, its vector record; its
 *   change-log record, which a creation adds to the log only, not to the by-entry index; its two
 *   counters) and awaiting their commit, as
 *   `POST /memory/facts` does (lmdb-js group-commits what is in flight); writes/s.
 * - batch: 1,000 entries' records in one transaction, counters once per batch, as the batch route
 *   writes them; entries/s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Change } from "../src/models/change.ts";
import type { StoredEntry } from "../src/models/stored-entry.ts";
import { ChangeLog } from "../src/vault/change-log.ts";
import { putWriteSet } from "../src/vault/put-write-set.ts";
import { openEnvironment, openGroup } from "../src/vault/tables.ts";
import type { Figure } from "./report.ts";
import { round } from "./stats.ts";

const DIMS = 384;
const CONCURRENCY = 64;
const BATCH = 1_000;

export interface FloorFigures {
  /** Single writes/s (each the records of one entry write), 64 awaiters. */
  single_puts_per_s: number;
  /** Entries/s in transactions of 1,000 entries. */
  batch_entries_per_s: number;
}

export async function lmdbFloor(seconds = 3): Promise<FloorFigures> {
  const dir = mkdtempSync(join(tmpdir(), "lmdb-floor-"));
  const root = openEnvironment(dir);
  const t = {
    memory: openGroup(root, "memory"),
    ingest: openGroup(root, "ingest"),
    vault: openGroup(root, "vault"),
  };
  // The change log's own put, so the floor indexes what production indexes (change-log.ts).
  const changeLog = new ChangeLog(openGroup(root, "log"));
  let seq = 0;
  const vector = new Float32Array(DIMS).fill(0.05);
  const putEntry = (): Promise<boolean> => {
    const stored = storedEntry(++seq);
    putWriteSet(t, { entries: [stored], created: [stored], vectors: [[stored.entry.id, vector]] }, []);
    const change: Change = {
      type: "entry.created",
      id: stored.entry.id,
      category: "fact",
      by: "bench",
      seq,
      at: stored.entry.recorded_at,
    };
    return changeLog.put([change])!;
  };
  const putCounters = () => {
    t.vault.meta.put("n:fact", seq);
    return t.vault.meta.put("w:2026-11-26:fact", seq);
  };
  try {
    let writes = 0;
    const end = performance.now() + seconds * 1000;
    const writer = async () => {
      while (performance.now() < end) {
        putEntry();
        await putCounters();
        writes++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, writer));
    const single = writes / seconds;
    let entries = 0;
    const start = performance.now();
    const end2 = start + seconds * 1000;
    while (performance.now() < end2) {
      for (let i = 0; i < BATCH; i++) putEntry();
      await putCounters();
      entries += BATCH;
    }
    const batch = entries / ((performance.now() - start) / 1000);
    return { single_puts_per_s: Math.round(single), batch_entries_per_s: Math.round(batch) };
  } finally {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor's figures for latest.json: its own two, and the service's write figures as ratios to
 * them (`writeRps`: single-write rounds; `batchEntriesPerS`: the batch route's loads).
 */
export function floorFigures(floor: FloorFigures, writeRps: number[], batchEntriesPerS: number[]): Figure[] {
  return [
    { key: "lmdb_floor_single_puts_per_s", runs: [floor.single_puts_per_s], note: "(storage floor)" },
    { key: "lmdb_floor_batch_entries_per_s", runs: [floor.batch_entries_per_s], note: "(storage floor)" },
    { key: "write_floor_ratio", runs: writeRps.map((r) => round(r / floor.single_puts_per_s)) },
    { key: "batch_floor_ratio", runs: batchEntriesPerS.map((r) => round(r / floor.batch_entries_per_s)) },
  ];
}

/** A fact as the service stores it (bench-sized content, one tag). */
function storedEntry(seq: number): StoredEntry {
  const at = new Date(Date.UTC(2026, 10, 26, 0, 0, 0, seq)).toISOString();
  return {
    seq,
    entry: {
      // Random-looking, as content-addressed ids are (an odd multiplier is a bijection of 32 bits).
      id: (Math.imul(seq, 2654435761) >>> 0).toString(16).padStart(8, "0"),
      tenant_id: "floor",
      category: "fact",
      content: `bench fact [${seq}] about billing latency`,
      tags: ["bench"],
      valid_from: at,
      valid_to: null,
      agent_id: "bench",
      recorded_at: at,
      expired_at: null,
      invalidated_at: null,
      created_by: "bench",
      origin: { kind: "agent", sub: "bench" },
      trust: "agent",
    },
  };
}

if (import.meta.main) console.log(await lmdbFloor(Number(process.env.FLOOR_SECONDS ?? 3)));
