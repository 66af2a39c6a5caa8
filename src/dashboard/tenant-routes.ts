/**
 * One tenant's dashboard page (`GET /admin/dashboard/tenants/{tenant_id}`), linked from each row of
 * the overview, and its forms: the replay of a dead letter (`POST …/replay`), its discard
 * (`POST …/discard`) and the pause or resume
 * of a source (`POST …/sources`), each answered with a redirect back to the page. Same auth as the
 * overview (the operator's token, or the dashboard's cookie); the forms take the cookie only from a
 * page of this origin carrying its form token (src/http/dashboard-form.ts). Errors are pages for a person (dashboardErrorPage).
 */
import { Elysia } from "elysia";
import { formTokenFor } from "../http/dashboard-form.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { requestIdOf } from "../http/request-id.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import type { TenantService } from "../tenants/service.ts";
import { letterAskedIn } from "../webhooks/letter-asked.ts";
import type { ReplayAsked, WebhookService } from "../webhooks/service.ts";
import {
  ADMIN_FORM,
  EntryPageParams,
  HtmlPage,
  pages,
  Redirect,
  ReplayForm,
  SearchPageQuery,
  SourceForm,
  StatusForm,
  TenantPageQuery,
  DASHBOARD_TAGS as tags,
} from "./model.ts";
import { redirectTo } from "./redirect.ts";
import type { DashboardService } from "./service.ts";
import { entryPage } from "./views/entry-page.ts";
import { PAGE_HEADERS } from "./views/page.ts";
import { tenantPagePath } from "./views/paths.ts";
import { searchPage } from "./views/search-page.ts";
import { tenantPage } from "./views/tenant-page.ts";

export interface DashboardTenantRouteDeps {
  http: HttpKit;
  dashboard: DashboardService;
  /** The admin tenant routes' own service: the same suspend and resume, audited. */
  tenants: Pick<TenantService, "setStatus">;
  /** The admin webhook routes' own service: the same replay, discard, pause and resume, audited. */
  webhooks: WebhookService;
}

/** What the replay and discard buttons' routes take: one dead letter's form, answered by a redirect. */
const letterForm = {
  adminForm: ADMIN_FORM,
  tenant: "any" as const,
  params: TenantParams,
  ...validatedBody(ReplayForm),
  response: { 303: Redirect, ...pages(401, 403, 404, 409, 422), ...problems(503, 507) },
};

/** The dead letter a replay or discard form names, and who posted it. */
function letterPosted(
  ctx: Parameters<typeof letterAskedIn>[0] & { body: { event_id: string; source: string } },
): ReplayAsked {
  return letterAskedIn(ctx, { eventId: ctx.body.event_id, source: ctx.body.source });
}

export const dashboardTenantRoutes = (deps: DashboardTenantRouteDeps) =>
  new Elysia({ name: "routes.dashboard.tenant" })
    .use(deps.http.authPlugin)
    .use(deps.http.tenantParam)
    .get(
      "/admin/dashboard/tenants/:tenant_id",
      async ({ tenant, query, request, set }) => {
        const model = await deps.dashboard.tenantPage({
          tenant,
          formToken: formTokenFor(request),
          replayed:
            query.replayed && query.event ? { status: query.replayed, event: query.event } : undefined,
          sourceChanged:
            query.changed && query.source ? { status: query.changed, source: query.source } : undefined,
          discarded: query.discarded,
          showAll: query.show === "all",
          statusSet: query.status,
        });
        Object.assign(set.headers, PAGE_HEADERS);
        return tenantPage(model);
      },
      {
        // Its refusals are pages too: a 429 keeps its Retry-After on one (dashboardErrorPage).
        auth: { level: "admin", refusals: pages(400, 413, 429) },
        tenant: "any",
        params: TenantParams,
        query: TenantPageQuery,
        response: { 200: HtmlPage, ...pages(401, 403, 404, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "One tenant's page: figures, writes per day, recent entries, dead letters with replay and discard, sources with pause and resume, connector health, denials",
        },
      },
    )
    .get(
      "/admin/dashboard/tenants/:tenant_id/entries/:category/:id",
      async ({ tenant, params, set }) => {
        const model = await deps.dashboard.entryPage({ tenant, category: params.category, id: params.id });
        Object.assign(set.headers, PAGE_HEADERS);
        return entryPage(model);
      },
      {
        auth: { level: "admin", refusals: pages(400, 413, 429) },
        tenant: "any",
        params: EntryPageParams,
        response: { 200: HtmlPage, ...pages(401, 403, 404, 410, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "One entry's page: its fields, origin and trust, validity, versions and history, with links to what it supersedes, corrects or resolves and what replaced it",
        },
      },
    )
    .get(
      "/admin/dashboard/tenants/:tenant_id/search",
      async ({ tenant, query, set }) => {
        const model = await deps.dashboard.searchPage(tenant, query);
        Object.assign(set.headers, PAGE_HEADERS);
        return searchPage(model);
      },
      {
        auth: { level: "admin", refusals: pages(400, 413, 429) },
        tenant: "any",
        params: TenantParams,
        query: SearchPageQuery,
        response: { 200: HtmlPage, ...pages(401, 403, 404, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The tenant page's search box: the tenant's memory searched as POST /memory/search does (the operator's read path), results linking to their entries' pages",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/replay",
      async (ctx) => {
        const reply = await deps.webhooks.replay(letterPosted(ctx));
        const did = { replayed: reply.status, event: ctx.body.event_id };
        return backToPage(ctx.set, ctx.tenant.tenant_id, did, "dead-letters");
      },
      {
        ...letterForm,
        detail: {
          tags,
          summary:
            "The tenant page's replay button: replays one dead letter as POST /admin/webhooks/replay does, then redirects back",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/discard",
      async (ctx) => {
        await deps.webhooks.discard(letterPosted(ctx));
        return backToPage(ctx.set, ctx.tenant.tenant_id, { discarded: ctx.body.event_id }, "dead-letters");
      },
      {
        ...letterForm,
        detail: {
          tags,
          summary:
            "The tenant page's discard button: discards one dead letter as POST /admin/webhooks/discard does, then redirects back",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/status",
      async ({ tenant, body, principal, set }) => {
        const item = await deps.tenants.setStatus(tenant.tenant_id, body.status, principal.sub);
        return backToPage(set, tenant.tenant_id, { status: item.status }, "tenant");
      },
      {
        adminForm: ADMIN_FORM,
        tenant: "any",
        params: TenantParams,
        ...validatedBody(StatusForm),
        response: { 303: Redirect, ...pages(401, 403, 404, 409, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The tenant page's suspend and resume buttons: as POST /admin/tenants/{tenant_id}/suspend and /resume do, then redirects back",
        },
      },
    )
    .post(
      "/admin/dashboard/tenants/:tenant_id/sources",
      async ({ tenant, body, principal, request, set }) => {
        const reply = await deps.webhooks.changeSource({
          tenantId: tenant.tenant_id,
          source: body.source,
          action: body.action,
          sub: principal.sub,
          requestId: requestIdOf(request),
        });
        return backToPage(set, tenant.tenant_id, { changed: reply.status, source: reply.source }, "sources");
      },
      {
        adminForm: ADMIN_FORM,
        tenant: "any",
        params: TenantParams,
        ...validatedBody(SourceForm),
        response: { 303: Redirect, ...pages(401, 403, 404, 422), ...problems(503, 507) },
        detail: {
          tags,
          summary:
            "The tenant page's pause and resume buttons: as POST /admin/webhooks/sources/…/pause and /resume do, then redirects back",
        },
      },
    );

/** A form's answer: 303 back to the tenant's page, at `anchor`, with what the form did in the query. */
function backToPage(
  set: { status?: number | string; headers: Record<string, string | number> },
  tenantId: string,
  did: Record<string, string>,
  anchor: string,
): string {
  return redirectTo(set, `${tenantPagePath(tenantId)}?${new URLSearchParams(did)}#${anchor}`);
}
