/**
 * What the dashboard's routes share (admin-dashboard.ts, admin-dashboard-tenant.ts): the HTML
 * responses as the OpenAPI document declares them, and the days of the writes chart.
 */
import { Type } from "@sinclair/typebox";
import { CATEGORIES, type Category } from "../models/category.ts";
import { isoOf } from "../models/common.ts";
import { sentAs } from "../models/media-type.ts";
import type { TenantStats } from "../protocols/tenant-protocol.ts";

export const HtmlPage = sentAs("text/html", Type.String({ description: "an HTML page" }));
export const Redirect = Type.String({ description: "empty; Location names the next page" });
export const DASHBOARD_TAGS = ["dashboard"];
/** Days the writes charts show: today and the 29 before it. */
export const CHART_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

/**
 * The dashboard's refusals are pages for a person (dashboardErrorPage): the sign-in form, saying
 * why, for a 401 or 403; an error page, with the error's headers, for any other.
 */
export function pages(...statuses: number[]): Record<number, typeof HtmlPage> {
  const out: Record<number, typeof HtmlPage> = {};
  for (const status of statuses)
    out[status] = {
      ...HtmlPage,
      description:
        status === 401 || status === 403 ? "The sign-in form, saying why" : "An error page, saying why",
    };
  return out;
}

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
