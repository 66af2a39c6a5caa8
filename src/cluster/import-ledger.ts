/**
 * Which import objects a periodic snapshot makes useless (docs/cluster.md, "Tenant imports"). An
 * object is read only by a replay that meets its record; once a snapshot at S holds the record and
 * the log below S is purged, no replay meets it again. The record's sequence is not in the object's
 * name (the object is uploaded before its record is appended), the epoch it is appended under is:
 *
 * - an object of an epoch older than the snapshot's: its writer was fenced out by the claim that
 *   opened the snapshot's epoch, so its record, if it ever landed, came before that claim, which
 *   is at or before S: covered (or an orphan, never referenced);
 * - an object of the snapshot's epoch: appended by this node, which remembers the sequence each of
 *   its records landed at while it serves the partition; covered when at or before S. One still
 *   uploading, or whose record landed after S, is kept;
 * - an object of a newer epoch: a later owner's, kept.
 *
 * What this node forgets (it stopped serving the partition) is kept until a later owner's snapshot.
 */
import { parseImportObjectName } from "./import-objects.ts";

export class ImportLedger {
  /** Partition → object name → the sequence its record landed at, for records this node appended. */
  private readonly landed = new Map<number, Map<string, number>>();

  /** The import record naming `name` landed at `seq` in `partition`'s log. */
  landedAt(partition: number, name: string, seq: number): void {
    let names = this.landed.get(partition);
    if (!names) {
      names = new Map();
      this.landed.set(partition, names);
    }
    names.set(name, seq);
  }

  /** The partition stopped being served here: its next snapshots are another epoch's. */
  forget(partition: number): void {
    this.landed.delete(partition);
  }

  /** Whether the snapshot of `partition` at `seq`, of epoch `epoch`, makes the object `name` useless. */
  covered(name: string, partition: number, epoch: number, seq: number): boolean {
    const parsed = parseImportObjectName(name);
    if (parsed === undefined || parsed.partition !== partition || parsed.epoch > epoch) return false;
    if (parsed.epoch < epoch) return true;
    const at = this.landed.get(partition)?.get(name);
    return at !== undefined && at <= seq;
  }

  /** Forgets what the snapshot at `seq` covered (its objects are deleted). */
  settled(partition: number, seq: number): void {
    const names = this.landed.get(partition);
    if (!names) return;
    for (const [name, at] of names) if (at <= seq) names.delete(name);
  }
}
