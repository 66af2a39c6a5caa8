/**
 * Weighted term counts are kept as integers in units of 1/TF_UNITS: a field of weight 0.5 adds 8
 * units per occurrence, one of weight 1 adds 16. Field weights are therefore multiples of 1/16
 * (others are rounded), and postings stay plain u32 pairs, compact in memory and on disk.
 */
export const TF_UNITS = 16;

/**
 * One term's postings as (document number, weighted count in TF_UNITS) pairs interleaved in one
 * typed array: one object per term, not two, because most terms of real text are rare (names,
 * ids, codes) and per-array overhead, not the postings, dominates their memory. Document numbers
 * ascend (documents are only appended).
 */
export class Postings {
  pairs = new Uint32Array(2);
  length = 0;

  append(doc: number, tf: number): void {
    if (2 * this.length === this.pairs.length) this.grow();
    this.pairs[2 * this.length] = doc;
    this.pairs[2 * this.length + 1] = tf;
    this.length++;
  }

  /** The count of `doc` in this term, by binary search, or 0. */
  tfOf(doc: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = this.pairs[2 * mid]!;
      if (d === doc) return this.pairs[2 * mid + 1]!;
      if (d < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  private grow(): void {
    const pairs = new Uint32Array(this.pairs.length * 2);
    pairs.set(this.pairs);
    this.pairs = pairs;
  }
}
