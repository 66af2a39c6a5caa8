import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { problems } from "../models/problem.ts";
import { RevenueQuery, RevenueReport } from "../models/revenue.ts";
import { TenantParams } from "../models/tenant.ts";
import { StatsQuery, TenantStatsReport } from "../models/tenant-stats.ts";
import type { Clock } from "../runtime/clock.ts";
import type { OperatorMetricsService } from "./service.ts";
import { statsDays } from "./tenant-stats.ts";
import { metricWindow } from "./window.ts";

export interface OperatorMetricRouteDeps {
  http: HttpKit;
  metrics: OperatorMetricsService;
  /** Now, for the default days and window. */
  clock: Clock;
}

/** Operator metrics (admin only). */
export const operatorMetricRoutes = ({ http, metrics, clock }: OperatorMetricRouteDeps) =>
  new Elysia({ name: "routes.admin.metrics", prefix: "/admin/metrics" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get(
      "/stats/:tenant_id",
      async ({ tenant, query }) => {
        const tenantId = tenant.tenant_id;
        const days = statsDays(query, clock.now());
        const stats = await metrics.stats(tenantId, days);
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
        return metrics.revenue(tenantId, metricWindow(query, clock.now()));
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
