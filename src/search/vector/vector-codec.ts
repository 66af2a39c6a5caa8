import { normalizeInPlace } from "../../embedding/vector-math.ts";
import { ValidationFailed } from "../../errors/domain-errors.ts";

/**
 * How the vector index stores a vector: as float16 bit patterns (half the size of float32, a
 * quarter of the old matrix plus graph copy), with the inverse norm of the stored (rounded)
 * vector beside it, so a score is the exact cosine with what is stored. float16 keeps ~3 decimal
 * digits per component: scores move by ~1e-5, far below the gaps between neighbours (i8 rows,
 * measured at 100k hash-embedded entries, held an exact scan's recall@10 at 0.98; f16, at 1.0).
 *
 * The graph gets 8-bit copies made from these rows, each scaled by its own largest component
 * (usearch's cosine is scale-invariant, so the scale need not be stored): a finer grid than a
 * fixed ×127, which wastes most of its range on unit vectors of hundreds of components.
 */

let table: Float32Array | undefined;

/** float16 bit pattern → float32 value, for all 65,536 patterns (a lookup beats decoding). */
export function halfTable(): Float32Array {
  if (!table) {
    const bits = new Uint16Array(65_536);
    for (let i = 0; i < bits.length; i++) bits[i] = i;
    table = Float32Array.from(new Float16Array(bits.buffer));
  }
  return table;
}

/**
 * `vec` rounded to float16 bit patterns (to nearest, ties to even; its values are finite), the
 * inverse norm of the rounded vector, and its 8-bit copy: one pass each, no allocation but the
 * outputs (this runs on every write: ~1 µs for 384 components).
 */
export function encodeHalf(vec: Float32Array): { bits: Uint16Array; invNorm: number; int8: Int8Array } {
  const n = vec.length;
  const words = new Uint32Array(Float32Array.from(vec).buffer);
  const bits = new Uint16Array(n);
  const lut = halfTable();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const half = toHalf(words[i]!);
    bits[i] = half;
    const v = lut[half]!;
    sum += v * v;
  }
  return { bits, invNorm: sum > 0 ? 1 / Math.sqrt(sum) : 0, int8: quantizeInt8(vec) };
}

/** The float16 bit pattern nearest to the float32 whose bits are `f`. */
function toHalf(f: number): number {
  const sign = (f >>> 16) & 0x8000;
  const exp = ((f >>> 23) & 0xff) - 112;
  let mant = f & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    // Subnormal in float16 (or zero).
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && half & 1)) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // Rounding up may carry into the exponent, which is the right result (up to infinity).
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/**
 * Dot product of `q` with the float16 row of `rows` starting at `offset` (`q.length` components).
 * Four sums let the CPU overlap the multiply-adds.
 */
export function dotHalf(q: Float32Array, rows: Uint16Array, offset: number): number {
  const lut = halfTable();
  const n = q.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const o = offset + i;
    s0 += q[i]! * lut[rows[o]!]!;
    s1 += q[i + 1]! * lut[rows[o + 1]!]!;
    s2 += q[i + 2]! * lut[rows[o + 2]!]!;
    s3 += q[i + 3]! * lut[rows[o + 3]!]!;
  }
  for (; i < n; i++) s0 += q[i]! * lut[rows[offset + i]!]!;
  return s0 + s1 + s2 + s3;
}

/** The float16 row at `offset` as float32 values times `scale`. */
export function decodeHalf(rows: Uint16Array, offset: number, dims: number, scale = 1): Float32Array {
  const lut = halfTable();
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = lut[rows[offset + i]!]! * scale;
  return out;
}

/** `vec` as 8-bit integers scaled so its largest component is ±127 (all zeros stay zeros). */
export function quantizeInt8(vec: Float32Array, out = new Int8Array(vec.length), at = 0): Int8Array {
  let max = 0;
  for (let i = 0; i < vec.length; i++) {
    const a = vec[i]! < 0 ? -vec[i]! : vec[i]!;
    if (a > max) max = a;
  }
  const scale = max > 0 ? 127 / max : 0;
  for (let i = 0; i < vec.length; i++) out[at + i] = Math.round(vec[i]! * scale);
  return out;
}

/** Rows [from, to) of float16 `rows` as one fresh Int8Array (offset 0, as usearch needs). */
export function halfRowsToInt8(rows: Uint16Array, dims: number, from: number, to: number): Int8Array {
  const out = new Int8Array((to - from) * dims);
  for (let row = from; row < to; row++) {
    quantizeInt8(decodeHalf(rows, row * dims, dims), out, (row - from) * dims);
  }
  return out;
}

/** A unit-length copy of `vec` (undefined if zero); `what` names it when its length is wrong. */
export function unitVector(vec: Float32Array, dims: number, what: string): Float32Array | undefined {
  if (vec.length !== dims) {
    const message = `${what} has ${vec.length} dimensions, expected ${dims}`;
    throw new ValidationFailed(message, [{ path: "/embedding", message }]);
  }
  const copy = Float32Array.from(vec);
  return normalizeInPlace(copy) ? copy : undefined;
}
