import { type Static, Type } from "@sinclair/typebox";
import { CATEGORIES } from "./category.ts";
import { LiteralUnion, QueryObject, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/** A UTC calendar day, `YYYY-MM-DD`. */
export const Day = Type.String({
  pattern: "^\\d{4}-\\d{2}-\\d{2}$",
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
  from_day: Type.Optional({ ...Day, description: "first day counted, UTC (default: 29 days before to_day)" }),
  to_day: Type.Optional({ ...Day, description: "last day counted, inclusive, UTC (default: today)" }),
});
