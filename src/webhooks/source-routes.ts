import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { requestIdOf } from "../http/request-id.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { SourceList, SourceStatusReply } from "../models/webhook-operations.ts";
import { SourceParams } from "./model.ts";
import type { SourceChange, WebhookService } from "./service.ts";

const tags = ["admin"];
/** What the routes on one source (its pause, its resume) take. */
const oneSource = { auth: "admin", tenant: "any", params: SourceParams } as const;

/** The pause or resume a route's context asks for: its tenant, source, principal and request id. */
function changeAsked(
  ctx: {
    tenant: { tenant_id: string };
    params: { source: string };
    principal: { sub: string };
    request: Request;
  },
  action: SourceChange["action"],
): SourceChange {
  const { tenant, params, principal, request } = ctx;
  return {
    tenantId: tenant.tenant_id,
    source: params.source,
    action,
    sub: principal.sub,
    requestId: requestIdOf(request),
  };
}

/**
 * Pausing and resuming a tenant's source (docs/webhook-operations.md): while paused its deliveries
 * are verified and held (202), then applied in arrival order by the resume. Admin only, audited.
 */
export const webhookSourceRoutes = ({ http, webhooks }: { http: HttpKit; webhooks: WebhookService }) =>
  new Elysia({ name: "routes.admin.webhook-sources", prefix: "/admin/webhooks/sources" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get("/:tenant_id", async ({ tenant }) => ({ sources: await webhooks.sources(tenant.tenant_id) }), {
      auth: "admin",
      tenant: "any",
      params: TenantParams,
      response: { 200: SourceList, ...problems(401, 403, 404, 503, 507) },
      detail: { tags, summary: "Every source of the tenant: paused or active, events held, dead letters" },
    })
    .post("/:tenant_id/:source/pause", (ctx) => webhooks.changeSource(changeAsked(ctx, "pause")), {
      ...oneSource,
      response: { 200: SourceStatusReply, ...problems(401, 403, 404, 503, 507) },
      detail: {
        tags,
        summary: "Pause a source: its deliveries are verified, held (202) and applied on resume",
      },
    })
    .post("/:tenant_id/:source/resume", (ctx) => webhooks.changeSource(changeAsked(ctx, "resume")), {
      ...oneSource,
      response: { 200: SourceStatusReply, ...problems(401, 403, 404, 503, 507) },
      detail: {
        tags,
        summary:
          "Resume a source: its held events are applied in arrival order, once each; answers when done",
      },
    });
