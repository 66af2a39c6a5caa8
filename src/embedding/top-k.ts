/**
 * A bounded min-heap keeping the `k` best (score, ref) pairs seen, in typed arrays so a query
 * allocates O(k), never O(corpus). `ref` is any non-negative integer the caller maps back
 * (a row or a document number). Among equal scores the first pushed wins: deterministic for a
 * given insertion order.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly refs: Int32Array;
  private length = 0;

  constructor(readonly k: number) {
    this.scores = new Float64Array(Math.max(1, k));
    this.refs = new Int32Array(Math.max(1, k));
  }

  get size(): number {
    return this.length;
  }

  /** Whether `score` would enter the heap: lets callers skip costly checks (filters) early. */
  admits(score: number): boolean {
    return this.k > 0 && (this.length < this.k || score > this.scores[0]!);
  }

  push(score: number, ref: number): void {
    if (!this.admits(score)) return;
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
      if (this.scores[parent]! <= this.scores[i]!) return;
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
      const child = right < this.length && this.scores[right]! < this.scores[left]! ? right : left;
      if (this.scores[child]! >= this.scores[i]!) return;
      this.swap(i, child);
      i = child;
    }
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
