import { Elysia } from "elysia";
import { PAUSABLE_SOURCES } from "../ingest/webhook-operations.ts";
import { problems } from "../models/problem.ts";
import { TenantParams } from "../models/tenant.ts";
import { DeliveryPage, deliveryQuery } from "../models/webhook-operations.ts";
import type { Deps } from "./deps.ts";

const DeliveryQuery = deliveryQuery(PAUSABLE_SOURCES);

/**
 * The delivery log (docs/webhook-operations.md#the-delivery-log): every event's outcome, newest
 * first, without bodies; kept MEMORY_RUNTIME_DELIVERY_LOG_DAYS. Admin only.
 */
export const adminWebhookDeliveryRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.webhook-deliveries", prefix: "/admin/webhooks/deliveries" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .get(
      "/:tenant_id",
      ({ tenant, query }) =>
        deps.webhooks.deliveries(tenant.tenant_id, { ...query, limit: query.limit ?? 100 }),
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
