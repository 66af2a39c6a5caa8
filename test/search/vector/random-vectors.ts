/** `n` pseudo-random unit vectors of `dims` components, the same for the same seed. */
export function randomUnitVectors(n: number, dims: number, seed: number): Float32Array[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: deterministic and good enough to spread vectors over the sphere.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32 - 0.5;
  };
  return Array.from({ length: n }, () => {
    const vec = Float32Array.from({ length: dims }, next);
    const norm = Math.hypot(...vec);
    return vec.map((x) => x / norm);
  });
}
