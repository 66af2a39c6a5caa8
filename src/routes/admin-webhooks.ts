import { type TSchema, Type } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import { sentJsonNull } from "../http/body.ts";
import { requestIdOf } from "../http/request-id.ts";
import { checkBody } from "../http/validate-body.ts";
import { PAUSABLE_SOURCES } from "../ingest/webhook-operations.ts";
import { LiteralUnion, QueryInteger, QueryObject } from "../models/common.ts";
import { DEAD_LETTER_STATUSES, DeadLetterList, DiscardReply, ReplayReply } from "../models/dead-letter.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import {
  BulkDiscardReply,
  type BulkReplayFilter,
  BulkReplayReply,
  bulkReplayBody,
} from "../models/webhook-operations.ts";
import { adminWebhookDeliveryRoutes } from "./admin-webhook-deliveries.ts";
import { adminWebhookSourceRoutes } from "./admin-webhook-sources.ts";
import { bulkDiscardDeadLetters, discardDeadLetter } from "./dead-letter-discard.ts";
import {
  filterDetails,
  letterAskedIn,
  REPLAYABLE_SOURCES,
  type ReplayAsked,
  replayDeadLetter,
} from "./dead-letter-replay.ts";
import type { Deps } from "./deps.ts";

const tags = ["admin"];

const DeadLetterQuery = QueryObject({
  status: Type.Optional(LiteralUnion(DEAD_LETTER_STATUSES)),
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 1000, default: 100 })),
});
/** The messaging bridge's dead letters are replayable too, though it has no webhook route. */
const ReplayQuery = QueryObject({
  source: Type.Optional(LiteralUnion(REPLAYABLE_SOURCES)),
});
const ReplayParams = Type.Object({ tenant_id: Type.String(), event_id: Type.String() });
/** What the routes on one dead letter (its replay, its discard) take. */
const oneLetter = { auth: "admin", tenant: "any", params: ReplayParams, query: ReplayQuery } as const;

/** The dead letter a route on one names (path and query), and who asks. */
function letterAsked(
  ctx: Parameters<typeof letterAskedIn>[0] & { params: { event_id: string }; query: { source?: string } },
): ReplayAsked {
  return letterAskedIn(ctx, { eventId: ctx.params.event_id, source: ctx.query.source });
}
/**
 * No body (read as null): every dead letter still dead, 100 at most. Checked by our compiled
 * check (arrays and scalars refused: Elysia's own lets them through as `{}`); the schema documents it.
 */
const bulkBody = bulkReplayBody(PAUSABLE_SOURCES);
const bulkCheck = TypeCompiler.Compile(bulkBody) as TypeCheck<TSchema>;
const BulkReplayBody = {
  body: Type.Optional(bulkBody),
  checkBody: TypeCompiler.Compile(
    Type.Union([bulkBody, Type.Undefined(), Type.Null()]),
  ) as TypeCheck<TSchema>,
  // A JSON `null` is refused (422) like `[]` or `5`: the reader answers it as it does no body (and
  // Elysia then fills in the defaults), so the request tells the two apart.
  beforeHandle({ request }: { request: Request }) {
    if (sentJsonNull(request)) checkBody(bulkCheck, null);
  },
};

/**
 * The admin webhook routes: dead letters, their replay and discard (here), pausing sources
 * (admin-webhook-sources.ts), the delivery log (admin-webhook-deliveries.ts).
 */
export const adminWebhookRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.webhooks.all" })
    .use(deadLetterRoutes(deps))
    .use(adminWebhookSourceRoutes(deps))
    .use(adminWebhookDeliveryRoutes(deps));

/**
 * Dead letters, their replay and their discard (admin only). Replay maps the stored payload again,
 * with no signature check; a discarded letter stays listed and is never replayed again.
 */
const deadLetterRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.webhooks", prefix: "/admin/webhooks" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get(
      "/dead-letters/:tenant_id",
      async ({ tenant, query }) => {
        const tenantId = tenant.tenant_id;
        const limit = query.limit ?? 100;
        return {
          dead_letters: await deps
            .tenant(tenantId)
            .ask({ type: "deadletter.list", status: query.status, limit }),
        };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: DeadLetterQuery,
        response: { 200: DeadLetterList, ...problems(401, 403, 404, 422, 503, 507) },
        detail: { tags, summary: "List dead-lettered events, newest first" },
      },
    )
    .post("/replay/:tenant_id/:event_id", (ctx) => replayDeadLetter(deps, letterAsked(ctx)), {
      ...oneLetter,
      response: { 200: ReplayReply, ...problems(401, 403, 404, 409, 422, 503, 507) },
      detail: {
        tags,
        summary: "Replay one dead-lettered event (no second signature check); a discarded one is a 409",
      },
    })
    .post(
      "/replay/:tenant_id",
      async ({ tenant, body, principal, request }) => {
        const tenantId = tenant.tenant_id;
        const filter: BulkReplayFilter = body ?? {};
        const reply = await deps.webhooks.bulkReplay(tenantId, filter, requestIdOf(request));
        await deps.audit({
          action: "deadletter.bulk_replayed",
          sub: principal.sub,
          tenant_id: tenantId,
          target: null,
          details: { replayed: reply.replayed, dead: reply.dead, ...filterDetails(filter) },
        });
        return reply;
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...BulkReplayBody,
        response: { 200: BulkReplayReply, ...problems(400, 401, 403, 404, 413, 415, 422, 503, 507) },
        detail: {
          tags,
          summary: "Replay the dead letters still dead that match, oldest first (at most `limit`, ≤ 1000)",
        },
      },
    )
    .post("/discard/:tenant_id/:event_id", (ctx) => discardDeadLetter(deps, letterAsked(ctx)), {
      ...oneLetter,
      response: { 200: DiscardReply, ...problems(401, 403, 404, 409, 422, 503, 507) },
      detail: {
        tags,
        summary:
          "Discard one dead letter: kept and listed as discarded, never replayed again (a replayed one is a 409)",
      },
    })
    .post(
      "/discard/:tenant_id",
      ({ tenant, body, principal, request }) =>
        bulkDiscardDeadLetters(deps, {
          tenantId: tenant.tenant_id,
          filter: body ?? {},
          sub: principal.sub,
          requestId: requestIdOf(request),
        }),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...BulkReplayBody,
        response: { 200: BulkDiscardReply, ...problems(400, 401, 403, 404, 413, 415, 422, 503, 507) },
        detail: {
          tags,
          summary:
            "Discard the dead letters still dead that match, oldest first, in one write (a bulk replay's filters and cursor)",
        },
      },
    );
