import { ValidationFailed } from "../errors.ts";

/** Parses `?limit=` strictly: digits only, within 1..max (Elysia's coercion would let "abc" in as NaN). */
export function limitOf(query: Record<string, string | undefined>, fallback: number, max: number): number {
  const raw = query.limit;
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d{1,6}$/.test(raw) || value < 1 || value > max) {
    throw new ValidationFailed(`limit must be an integer from 1 to ${max}`, [
      { path: "/limit", message: `1–${max}` },
    ]);
  }
  return value;
}
