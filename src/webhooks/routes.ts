import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { requestIdOf } from "../http/request-id.ts";
import { DeadLetterList, DiscardReply, ReplayReply } from "../models/dead-letter.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { BulkDiscardReply, type BulkReplayFilter, BulkReplayReply } from "../models/webhook-operations.ts";
import { webhookDeliveryRoutes } from "./delivery-routes.ts";
import { letterAskedIn } from "./letter-asked.ts";
import { BulkReplayBody, DeadLetterQuery, ReplayParams, ReplayQuery } from "./model.ts";
import type { BulkAsked, ReplayAsked, WebhookService } from "./service.ts";
import { webhookSourceRoutes } from "./source-routes.ts";

export interface WebhookRouteDeps {
  http: HttpKit;
  webhooks: WebhookService;
}

const tags = ["admin"];

/** What the routes on one dead letter (its replay, its discard) take. */
const oneLetter = { auth: "admin", tenant: "any", params: ReplayParams, query: ReplayQuery } as const;

/** What the routes on a selection of dead letters (bulk replay, bulk discard) take. */
const aSelection = { auth: "admin", tenant: "any", params: TenantParams, ...BulkReplayBody } as const;

/** The selection a bulk route's body names (none: every letter still dead), and who asks. */
function bulkAsked(ctx: {
  tenant: { tenant_id: string };
  body?: BulkReplayFilter | null;
  principal: { sub: string };
  request: Request;
}): BulkAsked {
  const { tenant, body, principal, request } = ctx;
  return {
    tenantId: tenant.tenant_id,
    filter: body ?? {},
    sub: principal.sub,
    requestId: requestIdOf(request),
  };
}

/** The dead letter a route on one names (path and query), and who asks. */
function letterAsked(
  ctx: Parameters<typeof letterAskedIn>[0] & { params: { event_id: string }; query: { source?: string } },
): ReplayAsked {
  return letterAskedIn(ctx, { eventId: ctx.params.event_id, source: ctx.query.source });
}

/**
 * The admin webhook routes: dead letters, their replay and discard (here), pausing sources
 * (source-routes.ts), the delivery log (delivery-routes.ts).
 */
export const webhookRoutes = (deps: WebhookRouteDeps) =>
  new Elysia({ name: "routes.admin.webhooks.all" })
    .use(deadLetterRoutes(deps))
    .use(webhookSourceRoutes(deps))
    .use(webhookDeliveryRoutes(deps));

/**
 * Dead letters, their replay and their discard (admin only). Replay maps the stored payload again,
 * with no signature check; a discarded letter stays listed and is never replayed again.
 */
const deadLetterRoutes = ({ http, webhooks }: WebhookRouteDeps) =>
  new Elysia({ name: "routes.admin.webhooks", prefix: "/admin/webhooks" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get(
      "/dead-letters/:tenant_id",
      async ({ tenant, query }) => ({
        dead_letters: await webhooks.deadLetters(tenant.tenant_id, query.status, query.limit ?? 100),
      }),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: DeadLetterQuery,
        response: { 200: DeadLetterList, ...problems(401, 403, 404, 422, 503, 507) },
        detail: { tags, summary: "List dead-lettered events, newest first" },
      },
    )
    .post("/replay/:tenant_id/:event_id", (ctx) => webhooks.replay(letterAsked(ctx)), {
      ...oneLetter,
      response: { 200: ReplayReply, ...problems(401, 403, 404, 409, 422, 503, 507) },
      detail: {
        tags,
        summary: "Replay one dead-lettered event (no second signature check); a discarded one is a 409",
      },
    })
    .post("/replay/:tenant_id", (ctx) => webhooks.bulkReplay(bulkAsked(ctx)), {
      ...aSelection,
      response: { 200: BulkReplayReply, ...problems(400, 401, 403, 404, 413, 415, 422, 503, 507) },
      detail: {
        tags,
        summary: "Replay the dead letters still dead that match, oldest first (at most `limit`, ≤ 1000)",
      },
    })
    .post("/discard/:tenant_id/:event_id", (ctx) => webhooks.discard(letterAsked(ctx)), {
      ...oneLetter,
      response: { 200: DiscardReply, ...problems(401, 403, 404, 409, 422, 503, 507) },
      detail: {
        tags,
        summary:
          "Discard one dead letter: kept and listed as discarded, never replayed again (a replayed one is a 409)",
      },
    })
    .post("/discard/:tenant_id", (ctx) => webhooks.bulkDiscard(bulkAsked(ctx)), {
      ...aSelection,
      response: { 200: BulkDiscardReply, ...problems(400, 401, 403, 404, 413, 415, 422, 503, 507) },
      detail: {
        tags,
        summary:
          "Discard the dead letters still dead that match, oldest first, in one write (a bulk replay's filters and cursor)",
      },
    });
