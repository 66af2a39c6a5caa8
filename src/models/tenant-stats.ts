import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { checkedKind } from "./checked-kind.ts";
import { LiteralUnion, QueryObject, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

const DAY_PATTERN = "^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$";
const DAY_RE = new RegExp(DAY_PATTERN);

const day = checkedKind<string>(
  "Day",
  (_schema, value) => typeof value === "string" && isRealDay(value),
  () => "Expected a real UTC day, YYYY-MM-DD",
);

/** Whether `value` is `YYYY-MM-DD` of a day that exists (not 2026-02-30). */
export function isRealDay(value: string): boolean {
  if (!DAY_RE.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00.000Z`);
  // Date.parse rolls 2026-02-30 over to March 2: an impossible day reads back differently.
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

/** A UTC calendar day, `YYYY-MM-DD`: the document's `format: date` and pattern, checked by `isRealDay`. */
export const Day = day({
  type: "string",
  format: "date",
  pattern: DAY_PATTERN,
  maxLength: 10,
  description: "UTC day, YYYY-MM-DD",
});

/** UTC days [fromDay, toDay], both `YYYY-MM-DD`. */
export interface DayRange {
  fromDay: string;
  toDay: string;
}

const Count = Type.Integer({ minimum: 0 });

/** `GET /admin/metrics/stats/{tenant_id}`: what the dashboard shows of one tenant. */
export const TenantStatsReport = named(
  "TenantStats",
  StrictObject({
    tenant_id: Type.String(),
    from_day: Day,
    to_day: Day,
    entries_per_category: StrictObject(
      Object.fromEntries(CATEGORIES.map((c) => [c, Count])) as Record<
        (typeof CATEGORIES)[number],
        typeof Count
      >,
      { description: "entries stored per category (counters kept with each write)" },
    ),
    dead_letters: { ...Count, description: "open dead letters: those not replayed" },
    writes_per_day: Type.Array(
      StrictObject({ day: Day, category: LiteralUnion(CATEGORIES), writes: Count }),
      {
        description:
          "entries written (by recorded_at) per UTC day in [from_day, to_day] and category; days without writes are left out",
      },
    ),
  }),
);
export type TenantStatsReport = Static<typeof TenantStatsReport>;

export const StatsQuery = QueryObject({
  from_day: Type.Optional({
    ...Day,
    description:
      "first day counted, UTC (default: 29 days before to_day); not after to_day, at most 366 days, from 0000-01-01 (422 otherwise)",
  }),
  to_day: Type.Optional({ ...Day, description: "last day counted, inclusive, UTC (default: today)" }),
});
