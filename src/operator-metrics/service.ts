/**
 * Operator metrics of a tenant, the service side of `/admin/metrics`: its dashboard counters and
 * its revenue per agent, read from its actor (never asked of a tenant without a vault: asking would
 * create one). `localFigures` is the single-node figures port the dashboard reads through.
 */
import { revenueFigures } from "../memory/revenue.ts";
import { isoOf } from "../models/common.ts";
import type { RevenueReport, Window } from "../models/revenue.ts";
import type { DayRange } from "../models/tenant-stats.ts";
import type { FiguresReader } from "../ports/runtime-ports.ts";
import type { TenantProtocol, TenantStats } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import { tenantStats } from "./tenant-stats.ts";

/** What reads a tenant's figures here: the tenant directory (is there a vault?) and its actor. */
export interface OperatorMetricsServiceDeps {
  /** Only whether a vault exists is read (asking its actor would create one). */
  tenants: Pick<TenantDirectory, "vaultPresent">;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
}

/** A tenant's revenue per agent in a window (CONTRACT §8); shared by the route and the dashboard. */
export async function revenueReport(
  deps: OperatorMetricsServiceDeps,
  tenantId: string,
  window: Window,
): Promise<RevenueReport> {
  // A tenant without a vault has no revenue; asking its actor would create the vault.
  if (!deps.tenants.vaultPresent(tenantId)) return emptyRevenueReport(tenantId, window);
  const figures = await deps.tenant(tenantId).ask({ type: "metrics.revenue", ...window });
  return { tenant_id: tenantId, from: isoOf(window.from), to: isoOf(window.to), ...figures };
}

/** The report of a tenant with nothing to count. */
export function emptyRevenueReport(tenantId: string, window: Window): RevenueReport {
  const figures = revenueFigures([], () => undefined);
  return { tenant_id: tenantId, from: isoOf(window.from), to: isoOf(window.to), ...figures };
}

/**
 * The single-node figures port (src/ports/runtime-ports.ts): the dashboard's figures of a tenant, as the two
 * routes answer them, read from its actor here.
 */
export function localFigures(deps: OperatorMetricsServiceDeps): FiguresReader {
  return async ({ tenantId, days, window }) => ({
    stats: await tenantStats(deps, tenantId, days),
    revenue: await revenueReport(deps, tenantId, window),
  });
}

export class OperatorMetricsService {
  constructor(private readonly deps: OperatorMetricsServiceDeps) {}

  /** Entries per category, dead letters and writes per UTC day, from counters kept with each write. */
  stats(tenantId: string, days: DayRange): Promise<TenantStats> | TenantStats {
    return tenantStats(this.deps, tenantId, days);
  }

  revenue(tenantId: string, window: Window): Promise<RevenueReport> {
    return revenueReport(this.deps, tenantId, window);
  }
}
