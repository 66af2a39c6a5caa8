/**
 * The fit of the static table: rows R (V × D) such that each fit sentence's weighted mean of its
 * rows, A·R, approaches the teacher's vector T for it, held near the teacher's vectors of the
 * entries themselves (R0) by a ridge term:
 *
 *   minimise ‖A·R − T‖² + λ‖R − R0‖²   ⇔   (AᵀA + λI)·R = AᵀT + λ·R0
 *
 * solved by conjugate gradients, one per column, all columns at once (A is sparse: a sentence
 * touches a dozen rows). An entry no fit sentence uses keeps its teacher vector.
 */

/** A sentence's rows and their mean's coefficients (weight × count, summing to 1). */
export interface SparseRows {
  rowStart: Int32Array;
  cols: Int32Array;
  coef: Float32Array;
}

export function sparseRows(sentences: number[][], weights: Float32Array): SparseRows {
  const rowStart = new Int32Array(sentences.length + 1);
  const cols: number[] = [];
  const coef: number[] = [];
  sentences.forEach((ids, j) => {
    const counts = new Map<number, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + weights[id]!);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    for (const [id, w] of counts) {
      cols.push(id);
      coef.push(w / total);
    }
    rowStart[j + 1] = cols.length;
  });
  return { rowStart, cols: Int32Array.from(cols), coef: Float32Array.from(coef) };
}

/** out (N × D) = A · X (V × D). */
function multiply(a: SparseRows, x: Float32Array, dims: number, out: Float32Array): void {
  out.fill(0);
  for (let j = 0; j + 1 < a.rowStart.length; j++) {
    const o = j * dims;
    for (let k = a.rowStart[j]!; k < a.rowStart[j + 1]!; k++) {
      const c = a.coef[k]!;
      const xo = a.cols[k]! * dims;
      for (let d = 0; d < dims; d++) out[o + d] = out[o + d]! + c * x[xo + d]!;
    }
  }
}

/** out (V × D) = Aᵀ · Y (N × D). */
function multiplyTransposed(a: SparseRows, y: Float32Array, dims: number, out: Float32Array): void {
  out.fill(0);
  for (let j = 0; j + 1 < a.rowStart.length; j++) {
    const yo = j * dims;
    for (let k = a.rowStart[j]!; k < a.rowStart[j + 1]!; k++) {
      const c = a.coef[k]!;
      const o = a.cols[k]! * dims;
      for (let d = 0; d < dims; d++) out[o + d] = out[o + d]! + c * y[yo + d]!;
    }
  }
}

/** Per column d: Σ_i u[i,d]·v[i,d]. */
function columnDots(u: Float32Array, v: Float32Array, dims: number): Float64Array {
  const out = new Float64Array(dims);
  for (let i = 0; i < u.length; i += dims)
    for (let d = 0; d < dims; d++) out[d] = out[d]! + u[i + d]! * v[i + d]!;
  return out;
}

export function fitRows(opts: {
  a: SparseRows;
  targets: Float32Array;
  initial: Float32Array;
  dims: number;
  lambda: number;
  iterations: number;
}): Float32Array {
  const { a, targets, initial, dims, lambda } = opts;
  const n = a.rowStart.length - 1;
  const scratch = new Float32Array(n * dims);
  const apply = (x: Float32Array, out: Float32Array) => {
    multiply(a, x, dims, scratch);
    multiplyTransposed(a, scratch, dims, out);
    for (let i = 0; i < out.length; i++) out[i] = out[i]! + lambda * x[i]!;
  };
  const x = initial.slice();
  const r = new Float32Array(x.length);
  multiplyTransposed(a, targets, dims, r);
  const mx = new Float32Array(x.length);
  apply(x, mx);
  for (let i = 0; i < r.length; i++) r[i] = r[i]! + lambda * initial[i]! - mx[i]!;
  const p = r.slice();
  let rr = columnDots(r, r, dims);
  for (let it = 0; it < opts.iterations; it++) {
    apply(p, mx);
    const pmp = columnDots(p, mx, dims);
    const alpha = rr.map((v, d) => (pmp[d]! > 0 ? v / pmp[d]! : 0));
    for (let i = 0; i < x.length; i++) {
      const d = i % dims;
      x[i] = x[i]! + alpha[d]! * p[i]!;
      r[i] = r[i]! - alpha[d]! * mx[i]!;
    }
    const next = columnDots(r, r, dims);
    const beta = next.map((v, d) => (rr[d]! > 0 ? v / rr[d]! : 0));
    for (let i = 0; i < p.length; i++) p[i] = r[i]! + beta[i % dims]! * p[i]!;
    rr = next;
  }
  return x;
}
