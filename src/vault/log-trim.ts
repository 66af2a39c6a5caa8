/**
 * The oldest records of a bounded log (the denial and admin audit logs), to trim as new ones are
 * appended with plain puts that commit later (lmdb-js puts every write of an event turn into one
 * transaction). The committed records are read from the snapshot; those put or removed by writes
 * still in flight are kept here, so two appends of one turn never pick the same record, and a
 * record appended earlier in the same turn can be trimmed too.
 */
export class LogTrim {
  /** Per log: sequence numbers put by writes in flight, oldest first. */
  private readonly puts = new Map<string, number[]>();
  /** Per log: sequence numbers removed by writes in flight. */
  private readonly removals = new Map<string, Set<number>>();

  /** The `n` oldest records of `log`: committed ones (`committed`, ascending) first, then those in flight. */
  oldest(log: string, committed: Iterable<number>, n: number): number[] {
    const out: number[] = [];
    if (n <= 0) return out;
    const removed = this.removals.get(log);
    const taken = new Set<number>();
    const take = (seq: number) => {
      if (out.length >= n || removed?.has(seq) || taken.has(seq)) return;
      taken.add(seq);
      out.push(seq);
    };
    for (const seq of committed) {
      take(seq);
      if (out.length >= n) return out;
    }
    for (const seq of this.puts.get(log) ?? []) take(seq);
    return out;
  }

  /** An append in flight: what it put and removed stays known here until `commit` settles. */
  track(log: string, put: number, removed: number[], commit: Promise<unknown>): void {
    const puts = this.puts.get(log) ?? [];
    puts.push(put);
    this.puts.set(log, puts);
    const removals = this.removals.get(log) ?? new Set<number>();
    for (const seq of removed) removals.add(seq);
    this.removals.set(log, removals);
    const settled = () => {
      const at = puts.indexOf(put);
      if (at >= 0) puts.splice(at, 1);
      if (puts.length === 0 && this.puts.get(log) === puts) this.puts.delete(log);
      for (const seq of removed) removals.delete(seq);
      if (removals.size === 0 && this.removals.get(log) === removals) this.removals.delete(log);
    };
    commit.then(settled, settled);
  }
}
