import type { Change, ChangeDraft } from "../models/change.ts";
import { isoOf } from "../models/common.ts";
import type { TablesOf } from "./tables.ts";

/**
 * A tenant's change log: what each committed write did, numbered in commit order. Every feature's
 * writes add to it (through their write sets); history, the live stream, outbound events and the
 * search index's catch-up read it.
 */
export class ChangeLog {
  /** The newest position handed out (committed or still committing). */
  private seq: number;

  constructor(private readonly tables: TablesOf<"log">) {
    this.seq = this.last();
  }

  /** The newest position committed (0 when empty). */
  last(): number {
    for (const key of this.tables.changes.getKeys({ reverse: true, limit: 1 })) return key;
    return 0;
  }

  /** The newest position handed out (committed or still committing). */
  current(): number {
    return this.seq;
  }

  /** Committed changes after position `after`, oldest first, at most `limit`. */
  since(after: number, limit: number): Change[] {
    return [...this.tables.changes.getRange({ start: after + 1, limit }).map(({ value }) => value)];
  }

  /**
   * Every committed change of one entry (or dead-lettered event id) after its creation, oldest
   * first; the creation itself only in vaults written before it stopped being indexed.
   */
  of(id: string): Change[] {
    const out: Change[] = [];
    const { changes, changesByEntry } = this.tables;
    for (const key of changesByEntry.getKeys({ start: [id, 0], end: [id, Number.MAX_SAFE_INTEGER] })) {
      const change = changes.get(key[1]);
      if (change) out.push(change);
    }
    return out;
  }

  /** A write's changes with their positions, taken in staging order (the actor's order). */
  position(drafts: ChangeDraft[] | undefined, at: () => number): Change[] {
    if (!drafts || drafts.length === 0) return [];
    const time = isoOf(at());
    return drafts.map((draft) => ({ ...draft, seq: ++this.seq, at: time }));
  }

  /** Plain puts: they join the transaction of the write set they belong to; the last one's promise. */
  put(changes: Change[]): Promise<boolean> | undefined {
    let last: Promise<boolean> | undefined;
    for (const change of changes) {
      last = this.tables.changes.put(change.seq, change);
      const key = byEntryKey(change);
      if (key) last = this.tables.changesByEntry.put(key, change.type);
    }
    return last;
  }
}

/**
 * A change's key in the by-entry index, or none for a creation. Creations are most of the log,
 * and the entry (its `recorded_at` and `created_by`, or its tombstone's) already says when and by
 * whom it was made, so a write of a new entry adds no record under its random id but its id → seq
 * (the sequence-keyed layout: docs/performance.md). What happens to an entry later is indexed.
 */
export function byEntryKey(change: Change): [string, number] | undefined {
  return change.type === "entry.created" ? undefined : [change.id, change.seq];
}
