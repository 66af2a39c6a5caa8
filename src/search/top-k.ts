/**
 * A bounded min-heap keeping the `k` best (score, ref) pairs seen, in typed arrays so a query
 * allocates O(k), never O(corpus). `ref` is any non-negative integer the caller maps back
 * (a row or a document number). Among equal scores the first pushed wins (deterministic for a
 * given insertion order), unless `precedes` orders them: then the kept set is the same whatever
 * the insertion order, as a search whose later stages read the whole pool needs (an index rebuilt
 * in another order, after an import, must answer as the original did).
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly refs: Int32Array;
  private length = 0;

  constructor(
    readonly k: number,
    /** Among equal scores, whether ref `a` ranks before ref `b`. */
    private readonly precedes?: (a: number, b: number) => boolean,
  ) {
    this.scores = new Float64Array(Math.max(1, k));
    this.refs = new Int32Array(Math.max(1, k));
  }

  get size(): number {
    return this.length;
  }

  /**
   * Whether `score` (of `ref`, which breaks a tie with the worst kept when `precedes` is given)
   * would enter the heap: lets callers skip costly checks (filters) early.
   */
  admits(score: number, ref?: number): boolean {
    if (this.k <= 0) return false;
    if (this.length < this.k || score > this.scores[0]!) return true;
    return score === this.scores[0]! && ref !== undefined && this.precedes?.(ref, this.refs[0]!) === true;
  }

  push(score: number, ref: number): void {
    if (!this.admits(score, ref)) return;
    if (this.length < this.k) {
      this.scores[this.length] = score;
      this.refs[this.length] = ref;
      this.siftUp(this.length++);
      return;
    }
    this.scores[0] = score;
    this.refs[0] = ref;
    this.siftDown(0);
  }

  /** The kept pairs, best first; empties the heap. */
  drain(): { score: number; ref: number }[] {
    const out = new Array<{ score: number; ref: number }>(this.length);
    for (let i = this.length - 1; i >= 0; i--) {
      out[i] = { score: this.scores[0]!, ref: this.refs[0]! };
      this.length--;
      this.move(this.length, 0);
      this.siftDown(0);
    }
    return out;
  }

  private siftUp(start: number): void {
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(start: number): void {
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.length) return;
      const right = left + 1;
      const child = right < this.length && this.worse(right, left) ? right : left;
      if (!this.worse(child, i)) return;
      this.swap(i, child);
      i = child;
    }
  }

  /** Whether the pair at heap slot `i` ranks below the one at `j`. */
  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    if (a !== b || !this.precedes) return a < b;
    return this.precedes(this.refs[j]!, this.refs[i]!);
  }

  private move(from: number, to: number): void {
    this.scores[to] = this.scores[from]!;
    this.refs[to] = this.refs[from]!;
  }

  private swap(a: number, b: number): void {
    const score = this.scores[a]!;
    const ref = this.refs[a]!;
    this.move(b, a);
    this.scores[b] = score;
    this.refs[b] = ref;
  }
}
