import { Elysia } from "elysia";
import { ValidationFailed } from "../errors.ts";
import { timeParam } from "../memory/access.ts";
import { revenueFigures } from "../memory/revenue.ts";
import { isoOf } from "../models/common.ts";
import { problems } from "../models/problem.ts";
import { RevenueQuery, RevenueReport, type Window } from "../models/revenue.ts";
import { TenantParams } from "../models/tenant.ts";
import { StatsQuery, TenantStatsReport } from "../models/tenant-stats.ts";
import type { FiguresReader } from "../ports/runtime-ports.ts";
import type { Deps } from "./deps.ts";
import { statsDays, tenantStats } from "./tenant-stats.ts";

/** The default window: the last 30 days. */
export const DEFAULT_WINDOW_MS = 30 * 24 * 3600 * 1000;

/**
 * `from`/`to` of a metric query: RFC 3339, `from` before `to`, the window [from, to). By default it
 * ends just after now (so what was written this millisecond counts) and starts 30 days before its end.
 */
export function metricWindow(query: { from?: string; to?: string }, now: number): Window {
  const to = query.to === undefined ? now + 1 : timeParam(query.to, "to", now);
  const from = query.from === undefined ? to - DEFAULT_WINDOW_MS : timeParam(query.from, "from", now);
  if (from >= to)
    throw new ValidationFailed("from must be before to", [{ path: "/from", message: "before to" }]);
  // The default `from` is 30 days before `to`: a `to` in January of year 0000 would put it before
  // the first instant an RFC 3339 timestamp can name, and the answer could not say it.
  if (from < FIRST_RFC3339_MS) {
    const path = query.from === undefined ? "/to" : "/from";
    throw new ValidationFailed("the window starts before year 0000", [{ path, message: "from 0000-01-01" }]);
  }
  return { from, to };
}

const FIRST_RFC3339_MS = Date.parse("0000-01-01T00:00:00.000Z");

/** What reads a tenant's figures here: the tenant directory (is there a vault?) and its actor. */
export type LocalReaders = Pick<Deps, "tenants" | "tenant">;

/** A tenant's revenue per agent in a window (CONTRACT §8); shared by the route and the dashboard. */
export async function revenueReport(
  deps: LocalReaders,
  tenantId: string,
  window: Window,
): Promise<RevenueReport> {
  // A tenant without a vault has no revenue; asking its actor would create the vault.
  if (!deps.tenants.vaultPresent(tenantId)) return emptyRevenueReport(tenantId, window);
  const figures = await deps.tenant(tenantId).ask({ type: "metrics.revenue", ...window });
  return { tenant_id: tenantId, from: isoOf(window.from), to: isoOf(window.to), ...figures };
}

/**
 * The single-node figures port (src/ports/runtime-ports.ts): the dashboard's figures of a tenant, as the two
 * routes below answer them, read from its actor here.
 */
export function localFigures(deps: LocalReaders): FiguresReader {
  return async ({ tenantId, days, window }) => ({
    stats: await tenantStats(deps, tenantId, days),
    revenue: await revenueReport(deps, tenantId, window),
  });
}

/** The report of a tenant with nothing to count. */
export function emptyRevenueReport(tenantId: string, window: Window): RevenueReport {
  const figures = revenueFigures([], () => undefined);
  return { tenant_id: tenantId, from: isoOf(window.from), to: isoOf(window.to), ...figures };
}

/** Operator metrics (admin only). */
export const adminMetricRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.metrics", prefix: "/admin/metrics" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get(
      "/stats/:tenant_id",
      async ({ tenant, query }) => {
        const tenantId = tenant.tenant_id;
        const days = statsDays(query, deps.clock.now());
        const stats = await tenantStats(deps, tenantId, days);
        return { tenant_id: tenantId, from_day: days.fromDay, to_day: days.toDay, ...stats };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: StatsQuery,
        response: { 200: TenantStatsReport, ...problems(401, 403, 404, 422, 503, 507) },
        detail: {
          tags: ["admin"],
          summary: "A tenant's counters: entries per category, dead letters, writes per UTC day",
          description:
            "What the dashboard shows of the tenant, read from counters kept with each write (never the entries). Days: [from_day, to_day], at most 366; by default the last 30 days, today included.",
        },
      },
    )
    .get(
      "/revenue-per-agent/:tenant_id",
      ({ tenant, query }) => {
        const tenantId = tenant.tenant_id;
        return revenueReport(deps, tenantId, metricWindow(query, deps.clock.now()));
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: RevenueQuery,
        response: { 200: RevenueReport, ...problems(401, 403, 404, 422, 503, 507) },
        detail: {
          tags: ["admin"],
          summary: "Revenue per agent in a window (default: the last 30 days), per currency",
          description:
            "Revenue: success outcomes whose valid_from lies in [from, to), plus closed-won deal decisions written by connectors that no outcome resolves; each deal once. Agents: distinct agent_ids that wrote any entry in the window.",
        },
      },
    );
