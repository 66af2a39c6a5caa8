/**
 * The sequence-keyed entry layout (issue 35, item 1; docs/performance.md, "The write path and its
 * storage floor"): entries stored under their sequence number, so a write appends to the B-tree's
 * last pages, and one small id → seq record per entry, the only random-key put of an entry write.
 *
 * Vaults of the earlier layout (entries under their random 8-hex id, table `entries`) are
 * migrated on open, crash-safe: the new tables are written in transactions of their own while the
 * old table stays authoritative; the last one also sets the layout marker in `meta`, and only once
 * that is committed is the old table dropped. A kill at any point before the marker leaves the old
 * layout whole (the next open clears the new tables and copies again); after it, the next open
 * only finishes the drop.
 */
import type { Database, RootDatabase } from "lmdb";
import type { StoredEntry } from "../models/stored-entry.ts";
import { storedCount, type TablesOf } from "./tables.ts";

/** The earlier layout's table: id → stored entry. */
export const ID_KEYED_ENTRIES = "entries";
/** Set in the transaction that copies the last entries: from its commit the new tables are the vault's. */
export const SEQ_LAYOUT_KEY = "layout:entries-by-seq";
/** Entries copied per transaction: bounds a migration's dirty pages at a million entries. */
const CHUNK = 10_000;

export interface SeqLayoutOptions {
  /** Entries per transaction (tests make it small). */
  chunk?: number;
  /** Called after each committed transaction of the copy, with the entries copied so far. */
  afterChunk?: (copied: number) => void;
}

/** Idempotent, on every open: nothing to do (a marker and no old table) costs one read. */
export function migrateSeqLayout(
  root: RootDatabase,
  memory: TablesOf<"memory">,
  meta: Database<number, string>,
  options: SeqLayoutOptions = {},
): void {
  const migrated = meta.get(SEQ_LAYOUT_KEY) === 1;
  const names = new Set([...root.getKeys()].map(String));
  const old = names.has(ID_KEYED_ENTRIES)
    ? root.openDB<StoredEntry, string>({ name: ID_KEYED_ENTRIES })
    : undefined;
  if (!migrated && old && storedCount(old) > 0) copyEntries(root, memory, meta, old, options);
  else if (!migrated) meta.putSync(SEQ_LAYOUT_KEY, 1);
  // Only once the marker is committed: a crash before this line leaves a drop to redo, not a loss.
  old?.dropSync();
}

function copyEntries(
  root: RootDatabase,
  memory: TablesOf<"memory">,
  meta: Database<number, string>,
  old: Database<StoredEntry, string>,
  options: SeqLayoutOptions,
): void {
  const chunk = Math.max(1, options.chunk ?? CHUNK);
  // What an interrupted copy left: the old table is still the authority, so start over.
  memory.entries.clearSync();
  memory.entryIds.clearSync();
  let after: string | undefined;
  let copied = 0;
  for (let more = true; more; ) {
    more = root.transactionSync(() => {
      const page = idPage(old, after, chunk + 1);
      for (const [id, stored] of page.slice(0, chunk)) {
        memory.entries.put(stored.seq, stored);
        memory.entryIds.put(id, stored.seq);
      }
      after = page[Math.min(chunk, page.length) - 1]?.[0] ?? after;
      copied += Math.min(chunk, page.length);
      if (page.length <= chunk) meta.put(SEQ_LAYOUT_KEY, 1);
      return page.length > chunk;
    });
    options.afterChunk?.(copied);
  }
}

/** Up to `limit` entries of the old table after the id `after`, in id order. */
function idPage(old: Database<StoredEntry, string>, after: string | undefined, limit: number) {
  const page: Array<[string, StoredEntry]> = [];
  for (const { key, value } of old.getRange({ start: after, limit: limit + 1 }))
    if (key !== after && page.length < limit) page.push([key, value]);
  return page;
}

/** The committed entry of `id`, through its id → seq record (undefined when there is none). */
export function storedById(
  memory: {
    entries: { get(seq: number): StoredEntry | undefined };
    entryIds: { get(id: string): number | undefined };
  },
  id: string,
  seq = memory.entryIds.get(id),
): StoredEntry | undefined {
  if (seq === undefined) return undefined;
  const stored = memory.entries.get(seq);
  return stored?.entry.id === id ? stored : undefined;
}
