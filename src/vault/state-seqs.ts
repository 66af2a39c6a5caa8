import type { Database } from "lmdb";
import type { WriteSet } from "./write-set.ts";

const seqKey = (key: string) => `~seq:${key}`;

/**
 * Connector state written with a sequence (WriteSet.stateSeq) is written only if no newer snapshot
 * of the same key was written before: a connector's late, older position never overwrites a newer
 * one. The sequences are kept beside the state (`~seq:<key>`), and in memory once read: this
 * vault's actor is their only writer.
 */
export class StateSeqs {
  private readonly seqs = new Map<string, number>();

  constructor(private readonly connectorState: Database<unknown, string>) {}

  /** The state entries of the set that are not older than what is stored, with their sequences. */
  newer(set: WriteSet): Array<[string, unknown]> {
    const state = set.state ?? [];
    const seq = set.stateSeq;
    if (seq === undefined) return state;
    const kept: Array<[string, unknown]> = [];
    for (const [key, value] of state) {
      const k = seqKey(key);
      const stored = this.seqs.get(k) ?? (this.connectorState.get(k) as number | undefined) ?? 0;
      if (seq < stored) continue;
      this.seqs.set(k, seq);
      kept.push([key, value], [k, seq]);
    }
    return kept;
  }

  /** The set's commit failed: its sequences were never stored. */
  forget(set: WriteSet): void {
    for (const [key] of set.state ?? []) {
      const k = seqKey(key);
      if (this.seqs.get(k) === set.stateSeq) this.seqs.delete(k);
    }
  }
}
