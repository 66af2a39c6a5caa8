import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { DeliveryPage } from "../models/webhook-operations.ts";
import { DeliveryQuery } from "./model.ts";
import type { WebhookService } from "./service.ts";

/**
 * The delivery log (docs/webhook-operations.md#the-delivery-log): every event's outcome, newest
 * first, without bodies; kept MEMORY_RUNTIME_DELIVERY_LOG_DAYS. Admin only.
 */
export const webhookDeliveryRoutes = ({ http, webhooks }: { http: HttpKit; webhooks: WebhookService }) =>
  new Elysia({ name: "routes.admin.webhook-deliveries", prefix: "/admin/webhooks/deliveries" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .get(
      "/:tenant_id",
      ({ tenant, query }) => webhooks.deliveries(tenant.tenant_id, { ...query, limit: query.limit ?? 100 }),
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        query: DeliveryQuery,
        response: { 200: DeliveryPage, ...problems(401, 403, 404, 422, 503, 507) },
        detail: {
          tags: ["admin"],
          summary: "The delivery log: each event's outcome, newest first (no bodies)",
        },
      },
    );
