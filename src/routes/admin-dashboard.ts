import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { requestInfo } from "../auth/caller.ts";
import { type AppError, Unavailable } from "../errors.ts";
import { ADMIN_COOKIE } from "../http/auth-plugin.ts";
import { readFormBody } from "../http/body.ts";
import { validatedBody } from "../http/validate-body.ts";
import { Chars } from "../models/chars.ts";
import { isoOf, PageQuery } from "../models/common.ts";
import type { Denial } from "../models/denial.ts";
import { parseAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import type { Tenant } from "../models/tenant.ts";
import { emptyRevenueReport } from "../operator-metrics/service.ts";
import { metricWindow } from "../operator-metrics/window.ts";
import type { FiguresRequest, TenantFigures } from "../ports/runtime-ports.ts";
import { tenantCursor, tenantCursorOf } from "../tenants/cursor.ts";
import { type DashboardModel, dashboardPage, type TenantRow } from "../views/dashboard-page.ts";
import { errorPage } from "../views/error-page.ts";
import { PAGE_HEADERS } from "../views/page.ts";
import { SESSION_PATH, SIGN_OUT_PATH, signInPage } from "../views/sign-in-page.ts";
import {
  CHART_DAYS,
  DASHBOARD_TAGS,
  HtmlPage,
  lastDays,
  pages,
  Redirect,
  writesPerDay,
} from "./dashboard-parts.ts";
import type { Deps } from "./deps.ts";
import { noStats } from "./tenant-stats.ts";

export const DASHBOARD_PATH = "/admin/dashboard";
/** The cookie is sent back on the admin pages only. */
const COOKIE_PATH = "/admin";
const DENIALS_SHOWN = 20;
/** A JWT fits easily; a form is never a way to push a large body. */
const FORM_LIMIT = 16 * 1024;

const DashboardQuery = PageQuery(100, 25);
const SignInForm = Type.Object(
  { token: Chars(1, 8192, { description: "the operator's (admin) JWT" }) },
  { additionalProperties: true },
);
const tags = DASHBOARD_TAGS;

/**
 * The operator dashboard (CONTRACT §8): `GET /admin/dashboard` renders the page; its token form posts
 * to `/admin/dashboard/session`, which sets the cookie the page's GET requests then carry.
 */
export const adminDashboardRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.dashboard" })
    .use(deps.authPlugin)
    .get(
      DASHBOARD_PATH,
      async ({ query, request, set }) => {
        Object.assign(set.headers, PAGE_HEADERS);
        return dashboardPage(await dashboardModel(deps, query, request));
      },
      {
        // Its refusals are pages too: a 429 keeps its Retry-After on one (dashboardErrorPage).
        auth: { level: "admin", refusals: pages(400, 413, 429) },
        query: DashboardQuery,
        response: { 200: HtmlPage, ...pages(401, 403, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary: "The operator's page (admin JWT in Authorization or the dashboard cookie)",
        },
      },
    )
    .post(
      SESSION_PATH,
      async ({ body, request, set }) => {
        const principal = await deps.auth.authenticateToken(body.token);
        deps.guard.requireAdmin(principal, requestInfo(request));
        const maxAge = Math.max(0, Math.floor((Date.parse(principal.expiresAt) - deps.clock.now()) / 1000));
        set.status = 303;
        set.headers.location = DASHBOARD_PATH;
        set.headers["set-cookie"] = adminCookie(body.token, maxAge, isHttps(request));
        set.headers["cache-control"] = "no-store";
        return "";
      },
      {
        parse: parseAs("urlencoded", ({ request }: { request: Request }) =>
          readFormBody(request, FORM_LIMIT),
        ),
        ...validatedBody(SignInForm),
        response: { 303: Redirect, ...pages(400, 401, 403, 413, 422), ...problems(503) },
        detail: {
          tags,
          summary: "The dashboard's token form: sets the operator cookie and redirects to the dashboard",
          security: [],
        },
      },
    )
    .get(
      SIGN_OUT_PATH,
      ({ request, set }) => {
        set.status = 303;
        set.headers.location = DASHBOARD_PATH;
        set.headers["set-cookie"] = adminCookie("", 0, isHttps(request));
        set.headers["cache-control"] = "no-store";
        return "";
      },
      {
        response: { 303: Redirect },
        detail: { tags, summary: "Sign out: clears the operator cookie", security: [] },
      },
    );

/** `HttpOnly` (no script reads it), `SameSite=Strict` (no other site sends it), `Secure` over HTTPS. */
function adminCookie(token: string, maxAge: number, secure: boolean): string {
  const attributes = [`Path=${COOKIE_PATH}`, "HttpOnly", "SameSite=Strict", `Max-Age=${maxAge}`];
  if (secure) attributes.push("Secure");
  return [`${ADMIN_COOKIE}=${token}`, ...attributes].join("; ");
}

/** Served over HTTPS: directly, or behind a proxy that says so (the flag only ever restricts the cookie). */
function isHttps(request: Request): boolean {
  return request.url.startsWith("https:") || request.headers.get("x-forwarded-proto") === "https";
}

/**
 * The dashboard's errors are pages for a person. Those a sign-in cures show the form: no token →
 * 401 with the form; a refused token (expired, a tenant's: 403) → the form saying why; a stale
 * cookie is cleared. Any other (a 405, a 422, a 429) is an error page saying what went wrong.
 * Either keeps the error's own headers: a 401's WWW-Authenticate, a 405's Allow, a 429's Retry-After.
 */
export function dashboardErrorPage(
  request: Request,
  error: AppError,
  requestId: string,
): Response | undefined {
  const { path } = requestInfo(request);
  if (!path.startsWith(DASHBOARD_PATH) || error.status >= 500) return undefined;
  const headers: Record<string, string> = { ...error.headers, ...PAGE_HEADERS, "x-request-id": requestId };
  if (error.status === 401 && request.headers.get("cookie")?.includes(`${ADMIN_COOKIE}=`))
    headers["set-cookie"] = adminCookie("", 0, isHttps(request));
  const body =
    error.status === 401 || error.status === 403
      ? signInPage(signInMessage(error))
      : errorPage({
          status: error.status,
          title: error.title,
          detail: error.message || error.title,
          errors: error.errors,
          requestId,
          back: DASHBOARD_PATH,
        });
  return new Response(body, { status: error.status, headers });
}

function signInMessage(error: AppError): string | undefined {
  if (error.status === 401)
    return error.message === "missing bearer token" ? undefined : `The token was refused: ${error.message}.`;
  return "That token is not the operator's: sign in with the admin token.";
}

async function dashboardModel(
  deps: Deps,
  query: { limit?: number; cursor?: string },
  caller: Request,
): Promise<DashboardModel> {
  const now = deps.clock.now();
  const after = query.cursor === undefined ? undefined : tenantCursorOf(query.cursor);
  const page = deps.tenants.page(query.limit ?? 25, after);
  const days = lastDays(now, CHART_DAYS);
  const window = metricWindow({}, now);
  const range = { fromDay: days[0]!, toDay: days[days.length - 1]! };
  const figures = await Promise.all(
    page.tenants.map((t) => figuresOf(deps, { tenantId: t.tenant_id, days: range, window, caller })),
  );
  const stats = figures.map((f) => f.stats);
  const tenants: TenantRow[] = page.tenants.map((t, i) => row(t, figures[i]!));
  const last = page.tenants[page.tenants.length - 1];
  return {
    version: deps.config.version,
    generatedAt: isoOf(now),
    tenantCount: deps.tenants.count(),
    tenants,
    nextPage: page.more && last ? `${DASHBOARD_PATH}?cursor=${tenantCursor(last.tenant_id)}` : null,
    days,
    writesPerDay: writesPerDay(days, stats),
    deliveries: deps.ingest.counters.snapshot(),
    denials: recentDenials(deps, page.tenants),
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

/**
 * One tenant's counts and revenue, through the figures port (`deps.tenantFigures`): read here on a
 * single node; in cluster mode asked of the node serving the tenant, whose vault this node does
 * not hold. A tenant that cannot answer for a moment (503 `unavailable`: restarting after an
 * import, its owner gone or silent) is shown as such: one tenant never takes the operator's page down.
 */
async function figuresOf(deps: Deps, asked: FiguresRequest): Promise<RowFigures> {
  try {
    return await deps.tenantFigures(asked);
  } catch (error) {
    if (!(error instanceof Unavailable)) throw error;
    const revenue = emptyRevenueReport(asked.tenantId, asked.window);
    return { stats: noStats(), revenue, unavailable: error.message };
  }
}

/** The newest denials of the tenants on the page, newest first. */
function recentDenials(deps: Deps, tenants: Tenant[]): Denial[] {
  const all = tenants.flatMap((t) => deps.auditLogs.denials(t.tenant_id, DENIALS_SHOWN).items);
  return all.sort((a, b) => b.at.localeCompare(a.at)).slice(0, DENIALS_SHOWN);
}
