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

export interface SourceChange {
  tenantId: string;
  source: string;
  action: "pause" | "resume";
  /** Who asked (the audit log's `sub`). */
  sub: string;
  requestId: string | null;
}

/**
 * A pause or a resume, as the admin routes and the dashboard's buttons both do it: the source
 * checked (unknown: 404), the operation, then the admin audit log.
 */
export async function changeSource(deps: Deps, asked: SourceChange): Promise<SourceStatusReply> {
  const { tenantId, action, sub } = asked;
  const source = knownSource(asked.source);
  const reply =
    action === "pause"
      ? await deps.webhooks.pause(tenantId, source)
      : await deps.webhooks.resume(tenantId, source, asked.requestId);
  const details = action === "pause" ? { held: reply.held } : { status: reply.status, held: reply.held };
  const event = action === "pause" ? "webhook_source.paused" : "webhook_source.resumed";
  await deps.audit({ action: event, sub, tenant_id: tenantId, target: source, details });
  return reply;
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
      ({ tenant, params, principal, request }) =>
        changeSource(deps, {
          tenantId: tenant.tenant_id,
          source: params.source,
          action: "pause",
          sub: principal.sub,
          requestId: requestIdOf(request),
        }),
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
      ({ tenant, params, principal, request }) =>
        changeSource(deps, {
          tenantId: tenant.tenant_id,
          source: params.source,
          action: "resume",
          sub: principal.sub,
          requestId: requestIdOf(request),
        }),
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
