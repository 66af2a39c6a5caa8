import { Elysia } from "elysia";
import { NotFound } from "../errors.ts";
import { requestIdOf } from "../http/request-id.ts";
import { safeEcho } from "../http/safe-echo.ts";
import { PAUSABLE_SOURCES } from "../ingest/webhook-operations.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { SourceList, SourceStatusReply, sourcePathParams } from "../models/webhook-operations.ts";
import type { Deps } from "./deps.ts";

const tags = ["admin"];
const SourceParams = sourcePathParams(PAUSABLE_SOURCES);

/** The path's source, or a 404 (as on the webhook route: an unknown source is not found, not invalid). */
function knownSource(source: string): string {
  if (!PAUSABLE_SOURCES.includes(source)) throw new NotFound(`no webhook source ${safeEcho(source)}`);
  return source;
}

/**
 * Pausing and resuming a tenant's source (docs/webhook-operations.md): while paused its deliveries
 * are verified and held (202), then applied in arrival order by the resume. Admin only, audited.
 */
export const adminWebhookSourceRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.webhook-sources", prefix: "/admin/webhooks/sources" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get("/:tenant_id", async ({ tenant }) => ({ sources: await deps.webhooks.sources(tenant.tenant_id) }), {
      auth: "admin",
      tenant: "any",
      params: TenantParams,
      response: { 200: SourceList, ...problems(401, 403, 404, 503, 507) },
      detail: { tags, summary: "Every source of the tenant: paused or active, events held, dead letters" },
    })
    .post(
      "/:tenant_id/:source/pause",
      async ({ tenant, params, principal }) => {
        const tenantId = tenant.tenant_id;
        const reply = await deps.webhooks.pause(tenantId, knownSource(params.source));
        await deps.audit({
          action: "webhook_source.paused",
          sub: principal.sub,
          tenant_id: tenantId,
          target: reply.source,
          details: { held: reply.held },
        });
        return reply;
      },
      {
        auth: "admin",
        tenant: "any",
        params: SourceParams,
        response: { 200: SourceStatusReply, ...problems(401, 403, 404, 503, 507) },
        detail: {
          tags,
          summary: "Pause a source: its deliveries are verified, held (202) and applied on resume",
        },
      },
    )
    .post(
      "/:tenant_id/:source/resume",
      async ({ tenant, params, principal, request }) => {
        const tenantId = tenant.tenant_id;
        const source = knownSource(params.source);
        const reply = await deps.webhooks.resume(tenantId, source, requestIdOf(request));
        await deps.audit({
          action: "webhook_source.resumed",
          sub: principal.sub,
          tenant_id: tenantId,
          target: source,
          details: { status: reply.status, held: reply.held },
        });
        return reply;
      },
      {
        auth: "admin",
        tenant: "any",
        params: SourceParams,
        response: { 200: SourceStatusReply, ...problems(401, 403, 404, 503, 507) },
        detail: {
          tags,
          summary:
            "Resume a source: its held events are applied in arrival order, once each; answers when done",
        },
      },
    );
