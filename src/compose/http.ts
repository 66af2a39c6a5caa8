import { Elysia } from "elysia";
import { auditRoutes } from "../audit/routes.ts";
import { contextRoutes } from "../context/routes.ts";
import { conversationRoutes } from "../conversations/routes.ts";
import { dashboardOperatorRoutes } from "../dashboard/operator-routes.ts";
import { dashboardErrorPage, dashboardRoutes } from "../dashboard/routes.ts";
import { dashboardTenantRoutes } from "../dashboard/tenant-routes.ts";
import { entityRoutes } from "../entities/routes.ts";
import { eraseRoutes } from "../erase/routes.ts";
import { healthRoutes } from "../health/routes.ts";
import { bodyPlugin } from "../http/body.ts";
import { errorsPlugin } from "../http/errors.ts";
import { openapiPlugin } from "../http/openapi.ts";
import { RouteTable } from "../http/route-table.ts";
import { shutdownGatePlugin } from "../http/shutdown-gate.ts";
import { telemetryPlugin } from "../http/telemetry-plugin.ts";
import { ingestRoutes } from "../ingest/routes.ts";
import { mcpRoutes } from "../mcp/routes.ts";
import { memoryRoutes } from "../memory/routes.ts";
import { memoryStreamRoutes } from "../memory/stream-routes.ts";
import { mergeRoutes } from "../merge/routes.ts";
import { metricsRoutes } from "../metrics/routes.ts";
import { operatorMetricRoutes } from "../operator-metrics/routes.ts";
import { searchRoutes } from "../search/routes.ts";
import { subscriptionRoutes } from "../subscriptions/routes.ts";
import { systemRoutes } from "../system/routes.ts";
import { roleRoutes } from "../tenants/role-routes.ts";
import { adminTenantRoutes, tenantRoutes } from "../tenants/routes.ts";
import { tokenRoutes } from "../tokens/routes.ts";
import { transferRoutes } from "../transfer/routes.ts";
import { webhookRoutes } from "../webhooks/routes.ts";
import type { Runtime } from "./runtime.ts";

export { type ComposeOptions, composeRuntime as createRuntime, type Runtime } from "./compose.ts";

/**
 * The HTTP app: telemetry around everything (metrics, spans, the access log), the errors plugin
 * (before any route, or thrown errors come back as 500), then body, then routes.
 */
export function createApp(stages: AppStages) {
  const { stores, services, features } = stages;
  const { config, clock } = stores;
  const http = { authPlugin: services.authPlugin, tenantParam: services.tenantParam };
  const routes = new RouteTable();
  const { memory, search, entities, context, conversations } = features;
  const app = new Elysia({ normalize: false })
    .use(telemetryPlugin(stores.telemetry, clock, routes, services.foreground))
    .use(errorsPlugin(console.error, routes, [dashboardErrorPage]))
    .use(shutdownGatePlugin(services.shutdown))
    .use(bodyPlugin())
    .use(openapiPlugin(config.version, { embedder: config.embedder, dims: config.embeddingDims }))
    .use(healthRoutes({ http, health: features.health }))
    .use(tenantRoutes({ http, tenants: features.tenants, guard: services.guard }))
    .use(searchRoutes({ http, search }))
    .use(contextRoutes({ http, context }))
    .use(entityRoutes({ http, entities }))
    .use(memoryRoutes({ http, memory, config }))
    .use(conversationRoutes({ http, conversations, config }))
    .use(mergeRoutes({ http, merges: features.merges }))
    .use(memoryStreamRoutes({ http, streams: features.streams }))
    // The MCP tools ask the same services as the HTTP routes.
    .use(mcpRoutes({ http, memory, search, entities, context, conversations, config }))
    .use(adminTenantRoutes({ http, tenants: features.tenants }))
    .use(tokenRoutes({ http, minting: features.minting }))
    .use(transferRoutes({ http, transfer: features.transfer }))
    .use(eraseRoutes({ http, erasure: features.erasure }))
    .use(roleRoutes({ http, roles: features.roles }))
    .use(auditRoutes({ http, auditLogs: services.auditLogs }))
    .use(webhookRoutes({ http, webhooks: features.webhooks }))
    .use(subscriptionRoutes({ http, subscriptions: features.subscriptions }))
    .use(operatorMetricRoutes({ http, metrics: features.metrics, clock }))
    .use(dashboardRoutes({ http, dashboard: features.dashboard }))
    .use(
      dashboardTenantRoutes({
        ...{ http, dashboard: features.dashboard, webhooks: features.webhooks },
        tenants: features.tenants,
      }),
    )
    .use(dashboardOperatorRoutes({ http, actions: features.operatorActions }))
    .use(systemRoutes({ http, system: features.system }))
    .use(metricsRoutes({ http, metrics: stores.telemetry }))
    .use(ingestRoutes({ http, ingest: services.ingest, rateLimiter: services.rateLimiter }));
  routes.load(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** What the app is built from: the composition's stores, services and feature services (src/compose/). */
export type AppStages = Pick<Runtime, "stores" | "services" | "features">;
