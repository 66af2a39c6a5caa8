import { mkdirSync } from "node:fs";
import { type Database, open, type RootDatabase } from "lmdb";
import { committed } from "./room.ts";
import { META_KEYS, type MetaTable, SYSTEM_DATABASES, SYSTEM_TABLES } from "./tables.ts";

/**
 * Cluster mode's view of the system store (docs/cluster.md): the last `MR_SYSTEM` command applied,
 * and the store as a whole, copied into a snapshot and replaced by one.
 */
export class SystemReplication {
  constructor(
    private readonly root: RootDatabase,
    private readonly meta: MetaTable,
    /** Every opened table, by its name on disk (SYSTEM_DATABASES). */
    private readonly databases: ReadonlyMap<string, Database>,
  ) {}

  /** The sequence of the last `MR_SYSTEM` command applied here (0: none). */
  appliedSeq(): number {
    return this.meta.get(META_KEYS.appliedSeq) ?? 0;
  }

  /**
   * Records that the stream's command `seq` is applied. Issued in the same synchronous run as the
   * command's own puts (every mutator issues its puts before its first await), it is committed in
   * their transaction: lmdb-js batches all writes of an event turn into one (`eventTurnBatching`),
   * so after a crash the store holds a command's effect exactly when it holds its sequence.
   */
  markApplied(seq: number): Promise<void> {
    return committed(this.meta.put(META_KEYS.appliedSeq, seq));
  }

  /** A consistent, compacted copy of the whole store as `<dir>/data.mdb` (LMDB's copy, at one read transaction). */
  async backup(dir: string): Promise<void> {
    mkdirSync(dir, { recursive: true });
    await this.root.backup(dir, true);
  }

  /**
   * Replaces everything the store holds by the content of the store in `dir` (a snapshot: a
   * `backup`), or by nothing: every database is cleared and refilled in one synchronous run, so in
   * one transaction (readers see the old content until it commits, then the new one). The caller
   * must not write meanwhile (cluster mode: the system replica, the only writer, waits for it).
   * `reset` makes the slices forget their caches and read their counters from the source (its puts
   * are not committed yet): before the commit and again after it, since reads between the clear
   * and its commit may have cached the old content again.
   */
  async replaceWith(
    dir: string | undefined,
    reset: (source: RootDatabase | undefined) => void,
  ): Promise<void> {
    const source = dir === undefined ? undefined : openCopy(dir);
    try {
      let last: Promise<unknown> = Promise.resolve();
      for (const name of SYSTEM_DATABASES) {
        const target = this.databases.get(name);
        if (!target) throw new Error(`the system store has no table ${name}`);
        last = target.clearAsync();
        if (!source) continue;
        for (const { key, value } of source.openDB({ name }).getRange()) last = target.put(key, value);
      }
      reset(source);
      await committed(last);
      reset(source);
    } finally {
      await source?.close();
    }
  }
}

/** The applied `MR_SYSTEM` sequence of the store copy in `dir` (a `backup`), read without writing to it. */
export async function appliedSeqIn(dir: string): Promise<number> {
  const copy = openCopy(dir);
  try {
    return copy.openDB<number, string>({ name: SYSTEM_TABLES.meta.meta.name }).get(META_KEYS.appliedSeq) ?? 0;
  } finally {
    await copy.close();
  }
}

function openCopy(dir: string): RootDatabase {
  return open({ path: dir, compression: false, readOnly: true });
}
