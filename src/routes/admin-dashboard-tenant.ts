/**
 * One tenant's dashboard page (`GET /admin/dashboard/tenants/{tenant_id}`), linked from each row of
 * the overview, and its forms: the replay of a dead letter (`POST …/replay`), its discard
 * (`POST …/discard`) and the pause or resume
 * of a source (`POST …/sources`), each answered with a redirect back to the page. Same auth as the
 * overview (the operator's token, or the dashboard's cookie); the forms take the cookie only from a
 * page of this origin carrying its form token (src/http/dashboard-form.ts). Errors are pages for a person (dashboardErrorPage).
 */
import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { formTokenFor } from "../http/dashboard-form.ts";
import { requestIdOf } from "../http/request-id.ts";
import { validatedBody } from "../http/validate-body.ts";
import { Chars } from "../models/chars.ts";
import { LiteralUnion, QueryObject } from "../models/common.ts";
import { REPLAY_STATUSES } from "../models/dead-letter.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { SOURCE_STATUSES } from "../models/webhook-operations.ts";
import { PAGE_HEADERS } from "../views/page.ts";
import { tenantPage, tenantPagePath } from "../views/tenant-page.ts";
import { letterAskedIn } from "../webhooks/letter-asked.ts";
import { MAX_EVENT_ID, REPLAYABLE_SOURCES } from "../webhooks/model.ts";
import { PAUSABLE_SOURCES } from "../webhooks/operations.ts";
import { changeSource, discardDeadLetter, type ReplayAsked, replayDeadLetter } from "../webhooks/service.ts";
import { HtmlPage, pages, Redirect, DASHBOARD_TAGS as tags } from "./dashboard-parts.ts";
import type { Deps } from "./deps.ts";
import { tenantPageModel } from "./tenant-page-model.ts";

/** A form of a few short fields: never a way to push a large body. */
const FORM_LIMIT = 16 * 1024;

const TenantPageQuery = QueryObject({
  replayed: Type.Optional(LiteralUnion(REPLAY_STATUSES, { description: "what the last replay did" })),
  event: Type.Optional(Chars(1, MAX_EVENT_ID, { description: "the event the last replay was of" })),
  discarded: Type.Optional(Chars(1, MAX_EVENT_ID, { description: "the event the last discard was of" })),
  changed: Type.Optional(
    LiteralUnion(SOURCE_STATUSES, { description: "the source's status after the last pause or resume" }),
  ),
  source: Type.Optional(LiteralUnion(PAUSABLE_SOURCES, { description: "the source last paused or resumed" })),
});
const SourceForm = Type.Object(
  {
    source: LiteralUnion(PAUSABLE_SOURCES, { description: "a webhook source id, or messaging" }),
    action: LiteralUnion(["pause", "resume"] as const),
    form_token: Type.Optional(
      Chars(1, 128, { description: "the page's form token (needed with the cookie)" }),
    ),
  },
  { additionalProperties: true },
);
/** The replay's and the discard's form: one dead letter. */
const ReplayForm = Type.Object(
  {
    event_id: Chars(1, MAX_EVENT_ID, { description: "the dead letter's event id" }),
    source: LiteralUnion(REPLAYABLE_SOURCES, { description: "the dead letter's source" }),
    form_token: Type.Optional(
      Chars(1, 128, { description: "the page's form token (needed with the cookie)" }),
    ),
  },
  { additionalProperties: true },
);

/** What the replay and discard buttons' routes take: one dead letter's form, answered by a redirect. */
const letterForm = {
  adminForm: { limit: FORM_LIMIT, refusals: pages(400, 413, 429) },
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

export const adminDashboardTenantRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.dashboard.tenant" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get(
      "/admin/dashboard/tenants/:tenant_id",
      async ({ tenant, query, request, set }) => {
        const model = await tenantPageModel(deps, {
          tenant,
          formToken: formTokenFor(request),
          replayed:
            query.replayed && query.event ? { status: query.replayed, event: query.event } : undefined,
          sourceChanged:
            query.changed && query.source ? { status: query.changed, source: query.source } : undefined,
          discarded: query.discarded,
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
    .post(
      "/admin/dashboard/tenants/:tenant_id/replay",
      async (ctx) => {
        const reply = await replayDeadLetter(deps, letterPosted(ctx));
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
        await discardDeadLetter(deps, letterPosted(ctx));
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
      "/admin/dashboard/tenants/:tenant_id/sources",
      async ({ tenant, body, principal, request, set }) => {
        const reply = await changeSource(deps, {
          tenantId: tenant.tenant_id,
          source: body.source,
          action: body.action,
          sub: principal.sub,
          requestId: requestIdOf(request),
        });
        return backToPage(set, tenant.tenant_id, { changed: reply.status, source: reply.source }, "sources");
      },
      {
        adminForm: { limit: FORM_LIMIT, refusals: pages(400, 413, 429) },
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
  set.status = 303;
  set.headers.location = `${tenantPagePath(tenantId)}?${new URLSearchParams(did)}#${anchor}`;
  set.headers["cache-control"] = "no-store";
  return "";
}
