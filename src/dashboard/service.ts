/**
 * The dashboard's service: what its pages show, gathered from the tenants' actors, the figures port
 * and the system store, and the sign-in's check of the operator's token. The pages' actions (replay,
 * discard, a tenant's lifecycle, minting) are the admin API's own services, given to the routes.
 */

import { TypeCompiler } from "@sinclair/typebox/compiler";
import { requestInfo } from "../auth/caller.ts";
import { Unavailable } from "../errors/domain-errors.ts";
import { formTokenFor } from "../http/dashboard-form.ts";
import { checkBody } from "../http/validate-body.ts";
import { isoOf } from "../models/common.ts";
import type { Denial } from "../models/denial.ts";
import type { Trust } from "../models/origin.ts";
import { SearchBody } from "../models/search.ts";
import type { Tenant } from "../models/tenant.ts";
import { emptyRevenueReport } from "../operator-metrics/service.ts";
import { noStats } from "../operator-metrics/tenant-stats.ts";
import { metricWindow } from "../operator-metrics/window.ts";
import type { FiguresRequest, TenantFigures } from "../ports/runtime-ports.ts";
import { tenantCursor, tenantCursorOf } from "../tenants/cursor.ts";
import { type EntryAsked, entryPageModel } from "./entry-page-model.ts";
import { SEARCH_LIMIT } from "./model.ts";
import type { DashboardServiceDeps } from "./service-deps.ts";
import { type PageAsked, tenantPageModel } from "./tenant-page-model.ts";
import type { DashboardModel, TenantRow } from "./views/dashboard-page.ts";
import type { EntryPageModel } from "./views/entry-page.ts";
import { DASHBOARD_PATH } from "./views/paths.ts";
import type { SearchAsked, SearchPageModel } from "./views/search-page.ts";
import type { TenantPageModel } from "./views/tenant-page.ts";
import { CHART_DAYS, lastDays, writesPerDay } from "./writes-per-day.ts";

const DENIALS_SHOWN = 20;

export type { DashboardServiceDeps };

export class DashboardService {
  constructor(private readonly deps: DashboardServiceDeps) {}

  /**
   * The sign-in form's token: the operator's, else 401/403 (recorded as the guard records them).
   * Answers the seconds it stays valid, the cookie's Max-Age.
   */
  async signIn(token: string, request: Request): Promise<number> {
    const principal = await this.deps.auth.authenticateToken(token);
    this.deps.guard.requireAdmin(principal, requestInfo(request));
    return Math.max(0, Math.floor((Date.parse(principal.expiresAt) - this.deps.clock.now()) / 1000));
  }

  tenantPage(asked: PageAsked): Promise<TenantPageModel> {
    return tenantPageModel(this.deps, asked);
  }

  /** The search box's results: the tenant's memory searched by the operator (SearchService.searchAsOperator). */
  async searchPage(tenant: Tenant, query: SearchAsked): Promise<SearchPageModel> {
    const limit = query.limit ?? SEARCH_LIMIT;
    const present = this.deps.tenants.vaultPresent(tenant.tenant_id);
    const answer =
      query.q === undefined || !present
        ? undefined
        : await this.deps.search.searchAsOperator(tenant.tenant_id, checkedSearch(query, limit));
    const { tags, status, min_trust, valid_at, as_of } = query;
    return {
      version: this.deps.config.version,
      generatedAt: isoOf(this.deps.clock.now()),
      tenant: { tenant_id: tenant.tenant_id, name: tenant.name },
      asked: {
        q: query.q ?? "",
        category: query.category || undefined,
        limit,
        tags,
        status,
        min_trust,
        valid_at,
        as_of,
      },
      answer: answer ?? (query.q === undefined ? undefined : { results: [], took_ms: 0 }),
    };
  }

  /** One entry and its history, asked of its tenant's actor; a path naming no entry is a 404. */
  entryPage(asked: EntryAsked): Promise<EntryPageModel> {
    return entryPageModel(this.deps, asked);
  }

  /** The overview: one page of tenants with their figures, the writes chart, deliveries, denials. */
  async overview(
    query: { limit?: number; cursor?: string; deleted?: string },
    caller: Request,
  ): Promise<DashboardModel> {
    const { deps } = this;
    const now = deps.clock.now();
    const after = query.cursor === undefined ? undefined : tenantCursorOf(query.cursor);
    const page = deps.tenants.page(query.limit ?? 25, after);
    const days = lastDays(now, CHART_DAYS);
    const window = metricWindow({}, now);
    const range = { fromDay: days[0]!, toDay: days[days.length - 1]! };
    const figures = await Promise.all(
      page.tenants.map((t) => this.figuresOf({ tenantId: t.tenant_id, days: range, window, caller })),
    );
    const tenants: TenantRow[] = page.tenants.map((t, i) => row(t, figures[i]!));
    const last = page.tenants[page.tenants.length - 1];
    return {
      version: deps.config.version,
      generatedAt: isoOf(now),
      formToken: formTokenFor(caller),
      deleted: query.deleted,
      tenantCount: deps.tenants.count(),
      tenants,
      nextPage: page.more && last ? `${DASHBOARD_PATH}?cursor=${tenantCursor(last.tenant_id)}` : null,
      days,
      writesPerDay: writesPerDay(
        days,
        figures.map((f) => f.stats),
      ),
      deliveries: deps.ingest.counters.snapshot(),
      denials: this.recentDenials(page.tenants),
    };
  }

  /**
   * One tenant's counts and revenue, through the figures port: read here on a single node; in
   * cluster mode asked of the node serving the tenant, whose vault this node does not hold. A
   * tenant that cannot answer for a moment (503 `unavailable`: restarting after an import, its
   * owner gone or silent) is shown as such: one tenant never takes the operator's page down.
   */
  private async figuresOf(asked: FiguresRequest): Promise<RowFigures> {
    try {
      return await this.deps.tenantFigures(asked);
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error;
      const revenue = emptyRevenueReport(asked.tenantId, asked.window);
      return { stats: noStats(), revenue, unavailable: error.message };
    }
  }

  /** The newest denials of the tenants on the page, newest first. */
  private recentDenials(tenants: Tenant[]): Denial[] {
    const all = tenants.flatMap((t) => this.deps.auditLogs.denials(t.tenant_id, DENIALS_SHOWN).items);
    return all.sort((a, b) => b.at.localeCompare(a.at)).slice(0, DENIALS_SHOWN);
  }
}

const SEARCH_BODY = TypeCompiler.Compile(SearchBody);

/** The box's query as a body POST /memory/search would take, refused (422) as that route refuses it. */
function checkedSearch(query: SearchAsked, limit: number): SearchBody {
  const body = searchBodyOf(query, limit);
  checkBody(SEARCH_BODY, body);
  return body;
}

/** The box's query as POST /memory/search's body: its empty fields left out. */
export function searchBodyOf(query: SearchAsked, limit: number): SearchBody {
  const tags = (query.tags ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  return {
    query: query.q,
    limit,
    ...(query.category ? { categories: [query.category] } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(query.status ? { status: query.status } : {}),
    ...(query.min_trust ? { min_trust: query.min_trust as Trust } : {}),
    ...(query.valid_at ? { valid_at: query.valid_at } : {}),
    ...(query.as_of ? { as_of: query.as_of } : {}),
  };
}

interface RowFigures extends TenantFigures {
  /** Why the tenant's figures cannot be read now (it is restarting after an import, say). */
  unavailable?: string;
}

function row(t: Tenant, figures: RowFigures): TenantRow {
  return {
    tenant_id: t.tenant_id,
    name: t.name,
    status: t.status,
    entries: figures.stats.entries_per_category,
    dead_letters: figures.stats.dead_letters,
    revenue: figures.revenue,
    unavailable: figures.unavailable,
  };
}
