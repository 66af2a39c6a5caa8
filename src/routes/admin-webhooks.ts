import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { LiteralUnion, QueryInteger, QueryObject } from "../models/common.ts";
import { DEAD_LETTER_STATUSES, DeadLetterList, ReplayReply } from "../models/dead-letter.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { REPLAYABLE_SOURCES, replayDeadLetter } from "./dead-letter-replay.ts";
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

/** Dead letters and their replay (admin only). Replay maps the stored payload again, with no signature check. */
export const adminWebhookRoutes = (deps: Deps) =>
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
    .post(
      "/replay/:tenant_id/:event_id",
      ({ tenant, params, query, principal }) =>
        replayDeadLetter(deps, {
          tenantId: tenant.tenant_id,
          eventId: params.event_id,
          source: query.source,
          sub: principal.sub,
        }),
      {
        auth: "admin",
        tenant: "any",
        params: ReplayParams,
        query: ReplayQuery,
        response: { 200: ReplayReply, ...problems(401, 403, 404, 422, 503, 507) },
        detail: { tags, summary: "Replay one dead-lettered event (no second signature check)" },
      },
    );
