import { quantizeInt8 } from "./vector-codec.ts";

/**
 * How far the stored vectors' mean may move from the centre the graph was built with before the
 * graph is rebuilt around the new mean: the leftover offset is then at most a seventh of a
 * table vector's spread around its mean (~0.73), too little to collapse the walk's neighbourhoods.
 */
export const MAX_DRIFT = 0.1;
/** Below this many vectors the mean is too noisy to judge a drift by (and the graph is small). */
export const MIN_DRIFT_ROWS = 1024;
/**
 * A centre shorter than this keeps the walk's order close to the cosine's: its first few are
 * rescored. Measured (20k, list of 96): hash vectors (centre ~0.17) held recall@10 0.992 rescoring
 * 16; table vectors (centre ~0.68) fell to 0.895 rescoring 16, 0.957 with 32, 0.988 with 64 and
 * 0.993 with all.
 */
const ORDER_KEEPING_CENTRE = 0.3;
/** Pseudo-count pulling a small sample's mean toward zero: one vector never centres to nothing. */
const PRIOR_ROWS = 16;

/**
 * How many of the walk's candidates are rescored from the float16 rows: the graph's own order
 * (8-bit vectors) is already close, so the true best k are among its first few beyond k
 * (measured at 100k: rescoring 16 of 160 candidates for k = 10 kept recall@10 as rescoring all).
 * That holds for a graph centred on (near) zero; off zero, see `VectorCentre.rescored`.
 */
export function rescoreCount(k: number): number {
  return k + Math.max(6, k >> 1);
}

export type State = { sum: Float64Array; centre: Float32Array };

/**
 * The centre of the graph's space: the graph is built from, and walked with, vectors minus a
 * fixed centre, close to the mean of the stored (unit) vectors; candidates are then rescored with
 * the true cosine from the rows, so scores are those of the original space.
 *
 * Why: some embedders' vectors are anisotropic. The static table's sentence vectors all point
 * nearly the same way (their mean has norm ~0.68), and in a cosine graph over them every vector
 * is the others' near neighbour, so links to a clearly nearest but atypical entry are pruned away
 * and the walk never reaches it (10k table vectors: cosine 0.49 against 0.34 for the rest, never
 * returned). Subtracting the mean spreads them over the sphere again.
 *
 * Why measured, not fixed per embedder: the index does not know its embedder, a tenant's index
 * mixes the tiered embedder's table and model vectors (replaced over time), and `http`/`client`
 * vectors come from models nobody here has measured. The index keeps the running sum of its
 * vectors (persisted beside the keys; vector-files.ts) and rebuilds its graph when the mean has
 * moved by MAX_DRIFT from the graph's centre: a few times while a tenant grows, and again when
 * the model's vectors replace the table's. Isotropic vectors (`hash`) have a near-zero mean, so
 * their centre is near zero and their graph as before.
 */
export class VectorCentre {
  /** Sum of the stored unit vectors, in float64: adds and removes cancel without drifting. */
  readonly sum: Float64Array;
  /** The centre the graph's vectors were made with (zeros: none). */
  centre: Float32Array;

  constructor(private readonly dims: number) {
    this.sum = new Float64Array(dims);
    this.centre = new Float32Array(dims);
  }

  add(unit: Float32Array, sign = 1): void {
    for (let i = 0; i < this.dims; i++) this.sum[i]! += sign * unit[i]!;
  }

  remove(unit: Float32Array): void {
    this.add(unit, -1);
  }

  /**
   * Restores a saved state, or (a file of version 1 or 2, whose graph was built uncentred) measures
   * the sum once from the rows. Returns whether the graph is off the mean and must be rebuilt: one
   * over isotropic vectors, close to it, is kept.
   */
  load(saved: State | undefined, rows: { count: number; vectorAt(row: number): Float32Array }): boolean {
    this.reset();
    if (saved) {
      this.sum.set(saved.sum);
      this.centre = Float32Array.from(saved.centre);
      return false;
    }
    for (let row = 0; row < rows.count; row++) this.add(rows.vectorAt(row));
    return this.drifted(rows.count);
  }

  /** What a save keeps (vector-files.ts). */
  get state(): State {
    return { sum: this.sum, centre: this.centre };
  }

  reset(): void {
    this.sum.fill(0);
    this.centre = new Float32Array(this.dims);
  }

  /** The mean of `count` stored vectors, shrunk toward zero for a small sample. */
  mean(count: number): Float32Array {
    const out = new Float32Array(this.dims);
    const scale = 1 / (count + PRIOR_ROWS);
    for (let i = 0; i < this.dims; i++) out[i] = this.sum[i]! * scale;
    return out;
  }

  /** Whether the graph's centre is off the mean of `count` vectors by more than MAX_DRIFT. */
  drifted(count: number): boolean {
    if (count < MIN_DRIFT_ROWS) return false;
    const mean = this.mean(count);
    let d = 0;
    for (let i = 0; i < this.dims; i++) d += (mean[i]! - this.centre[i]!) ** 2;
    return Math.sqrt(d) > MAX_DRIFT;
  }

  /** Centres a new graph on the mean of the `count` stored vectors. */
  fix(count: number): void {
    this.centre = this.mean(count);
  }

  /**
   * How many of a walk's candidates to rescore: ranked in the centred space, they come in another
   * order than the true cosine's (a vector's centred norm depends on its angle to the centre), so
   * all of them are rescored once the centre is long; a short one (near-isotropic vectors) leaves
   * the true best k among the walk's first `rescoreCount(k)`.
   */
  rescored(candidates: number, k: number): number {
    let sq = 0;
    for (let i = 0; i < this.dims; i++) sq += this.centre[i]! * this.centre[i]!;
    return sq > ORDER_KEEPING_CENTRE ** 2 ? candidates : Math.min(rescoreCount(k), candidates);
  }

  /** The graph's 8-bit query for unit `q`. */
  query(q: Float32Array): Int8Array {
    const out = new Float32Array(this.dims);
    for (let i = 0; i < this.dims; i++) out[i] = q[i]! - this.centre[i]!;
    return quantizeInt8(out);
  }

  /**
   * Re-centres, in place, 8-bit copies of unit vectors (vector-codec.ts: each scaled by its own
   * largest component): a copy over its own norm is the unit vector again, within the grid.
   */
  centreRows<T extends Int8Array>(rows: T): T {
    const v = new Float32Array(this.dims);
    for (let at = 0; at < rows.length; at += this.dims) {
      let sq = 0;
      for (let i = 0; i < this.dims; i++) sq += rows[at + i]! * rows[at + i]!;
      const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
      for (let i = 0; i < this.dims; i++) v[i] = rows[at + i]! * inv - this.centre[i]!;
      quantizeInt8(v, rows as Int8Array<ArrayBuffer>, at);
    }
    return rows;
  }
}
