/**
 * What opening a vault of an earlier layout takes: each step is idempotent and runs on every open
 * (cheap when there is nothing to do).
 */
import type { Database, RootDatabase } from "lmdb";
import { CATEGORIES } from "../models/category.ts";
import type { TablesOf } from "./tables.ts";
import { encodeVectorRecord } from "./vector-records.ts";

/** Legacy high-water mark of the sequence; the category index is the source of truth now. */
const SEQ_KEY = "seq";
const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** The highest sequence number in use: the newest key of any category index (or the legacy mark). */
export function lastSeq(meta: Database<number, string>, memory: TablesOf<"memory">): number {
  let max = meta.get(SEQ_KEY) ?? 0;
  for (const category of CATEGORIES) {
    for (const key of memory.byCategory.getKeys({
      start: [category, MAX_SEQ],
      end: [category, -1],
      reverse: true,
      limit: 1,
    })) {
      max = Math.max(max, key[1]);
    }
  }
  return max;
}

/** Vaults of the first layout keyed vectors by entry id: rekeyed by sequence number once. */
export function migrateVectorKeys(root: RootDatabase, memory: TablesOf<"memory">): void {
  const legacy = memory.embeddings as unknown as Database<Buffer, number | string>;
  const byId: Array<[string, Buffer]> = [];
  for (const { key, value } of legacy.getRange({ start: "" }))
    if (typeof key === "string") byId.push([key, value]);
  if (byId.length === 0) return;
  root.transactionSync(() => {
    for (const [id, bytes] of byId) {
      legacy.remove(id);
      const seq = memory.entries.get(id)?.seq;
      if (seq === undefined) continue;
      const vec = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(vec.buffer).set(bytes);
      legacy.put(seq, encodeVectorRecord(id, vec));
    }
  });
}
