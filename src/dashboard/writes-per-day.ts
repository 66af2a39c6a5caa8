/** The days of the dashboard's writes charts, and the writes on each, summed from tenants' counters. */
import { CATEGORIES, type Category } from "../models/category.ts";
import { isoOf } from "../models/common.ts";
import type { TenantStats } from "../protocols/tenant-protocol.ts";

/** Days the writes charts show: today and the 29 before it. */
export const CHART_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

/** The last `count` UTC days, oldest first, today included. */
export function lastDays(now: number, count: number): string[] {
  const today = now - (((now % DAY_MS) + DAY_MS) % DAY_MS);
  return Array.from({ length: count }, (_, i) => isoOf(today - (count - 1 - i) * DAY_MS).slice(0, 10));
}

/** Per category, the entries written on each of `days`, summed over the tenants' counters. */
export function writesPerDay(days: string[], stats: TenantStats[]): Record<Category, number[]> {
  const index = new Map(days.map((d, i) => [d, i]));
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, days.map(() => 0)])) as Record<Category, number[]>;
  for (const s of stats) {
    for (const w of s.writes_per_day) {
      const i = index.get(w.day);
      if (i !== undefined) out[w.category][i]! += w.writes;
    }
  }
  return out;
}
