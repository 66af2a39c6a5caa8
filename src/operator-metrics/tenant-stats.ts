/**
 * A tenant's dashboard counters (entries per category, dead letters, writes per UTC day), read by
 * the stats route (`GET /admin/metrics/stats/{tenant_id}`) and by the dashboard on a single node.
 */
import { ValidationFailed } from "../errors/domain-errors.ts";
import { CATEGORIES, type Category } from "../models/category.ts";
import { isoOf } from "../models/common.ts";
import type { DayRange } from "../models/tenant-stats.ts";
import type { TenantProtocol, TenantStats } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { TenantDirectory } from "../tenants/directory.ts";

/** Days counted by default: today and the 29 before it, as the dashboard's chart. */
export const DEFAULT_DAYS = 30;
/** At most a year of days per answer (6 categories each): the answer stays small. */
export const MAX_DAYS = 366;
const DAY_MS = 24 * 3600 * 1000;
const FIRST_DAY_MS = Date.parse("0000-01-01T00:00:00.000Z");

/** A tenant without a vault has nothing to count; asking its actor would create the vault. */
export function tenantStats(
  deps: {
    tenants: Pick<TenantDirectory, "vaultPresent">;
    tenant(tenantId: string): ActorRef<TenantProtocol>;
  },
  tenantId: string,
  days: DayRange,
): Promise<TenantStats> | TenantStats {
  if (!deps.tenants.vaultPresent(tenantId)) return noStats();
  return deps.tenant(tenantId).ask({ type: "tenant.stats", ...days });
}

/** The counters of a tenant with nothing written. */
export function noStats(): TenantStats {
  const entries = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  return { entries_per_category: entries, dead_letters: 0, writes_per_day: [] };
}

/**
 * `from_day`/`to_day` of the stats query: real UTC days, `from_day` ≤ `to_day`, at most MAX_DAYS of
 * them; by default `to_day` is today and `from_day` 29 days before it.
 */
export function statsDays(query: { from_day?: string; to_day?: string }, now: number): DayRange {
  const to = query.to_day === undefined ? startOfDay(now) : dayParam(query.to_day, "to_day");
  const from =
    query.from_day === undefined ? to - (DEFAULT_DAYS - 1) * DAY_MS : dayParam(query.from_day, "from_day");
  if (from > to)
    throw new ValidationFailed("from_day must not be after to_day", [
      { path: "/from_day", message: "at most to_day" },
    ]);
  if ((to - from) / DAY_MS + 1 > MAX_DAYS)
    throw new ValidationFailed(`at most ${MAX_DAYS} days at once`, [
      { path: "/from_day", message: `within ${MAX_DAYS} days of to_day` },
    ]);
  // The default from_day of a to_day in January of year 0000 could not be written as a day.
  if (from < FIRST_DAY_MS)
    throw new ValidationFailed("the days start before year 0000", [
      { path: "/to_day", message: "from 0000-01-30" },
    ]);
  return { fromDay: dayOf(from), toDay: dayOf(to) };
}

function dayParam(value: string, name: string): number {
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  // Date.parse rolls 2026-02-30 over to March 2: an impossible day reads back differently.
  if (!Number.isFinite(ms) || dayOf(ms) !== value)
    throw new ValidationFailed(`${name} must be a day, YYYY-MM-DD`, [
      { path: `/${name}`, message: "YYYY-MM-DD" },
    ]);
  return ms;
}

function startOfDay(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

function dayOf(ms: number): string {
  return isoOf(ms).slice(0, 10);
}
