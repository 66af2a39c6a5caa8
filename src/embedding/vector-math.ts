/** Small numeric helpers shared by the embedders and the vector index. */

/** Scales `vec` in place to unit length; returns false (leaving it untouched) when it is all zeros. */
export function normalizeInPlace(vec: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < vec.length; i++) sum += vec[i]! * vec[i]!;
  if (sum === 0) return false;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < vec.length; i++) vec[i] = vec[i]! * inv;
  return true;
}

/** Dot product of `a` with the row of `matrix` starting at `offset` (length `a.length`). */
export function dotAt(a: Float32Array, matrix: Float32Array, offset: number): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * matrix[offset + i]!;
  return sum;
}

/** Why `values` cannot be an embedding of `dims` numbers, or undefined when it can. */
export function vectorProblem(values: ArrayLike<number>, dims: number): string | undefined {
  if (values.length !== dims) return `has ${values.length} numbers, expected ${dims}`;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) return `element ${i} is not a finite number`;
  }
  return undefined;
}
