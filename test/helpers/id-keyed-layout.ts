/**
 * Rewrites a closed tenant vault into the layout before issue 35 (entries under their id in
 * `entries`, no id → seq records, no layout marker), as a vault of that runtime was on disk.
 */
import type { Database, Key } from "lmdb";
import type { StoredEntry } from "../../src/models/stored-entry.ts";
import { ID_KEYED_ENTRIES, SEQ_LAYOUT_KEY } from "../../src/vault/seq-layout.ts";
import { openEnvironment, TABLES } from "../../src/vault/tables.ts";

export function toIdKeyedLayout(dir: string): number {
  const root = openEnvironment(dir);
  try {
    const db = (name: string) => root.openDB({ name }) as Database<unknown, Key>;
    const [byId, bySeq, ids, meta] = [
      db(ID_KEYED_ENTRIES),
      db(TABLES.memory.entries.name),
      db(TABLES.memory.entryIds.name),
      db(TABLES.vault.meta.name),
    ];
    let n = 0;
    root.transactionSync(() => {
      for (const { value } of bySeq.getRange()) {
        byId.put((value as StoredEntry).entry.id, value);
        n++;
      }
      meta.remove(SEQ_LAYOUT_KEY);
    });
    bySeq.dropSync();
    ids.dropSync();
    return n;
  } finally {
    void root.close();
  }
}
