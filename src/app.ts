import { Elysia } from "elysia";
import { auditRoutes } from "./audit/routes.ts";
import { eraseRoutes } from "./erase/routes.ts";
import { EraseService } from "./erase/service.ts";
import { bodyPlugin } from "./http/body.ts";
import { errorsPlugin } from "./http/errors.ts";
import { openapiPlugin } from "./http/openapi.ts";
import { RouteTable } from "./http/route-table.ts";
import { shutdownGatePlugin } from "./http/shutdown-gate.ts";
import { telemetryPlugin } from "./http/telemetry-plugin.ts";
import { ingestRoutes } from "./ingest/routes.ts";
import { operatorMetricRoutes } from "./operator-metrics/routes.ts";
import { OperatorMetricsService } from "./operator-metrics/service.ts";
import { adminDashboardRoutes, dashboardErrorPage } from "./routes/admin-dashboard.ts";
import { adminDashboardTenantRoutes } from "./routes/admin-dashboard-tenant.ts";
import { conversationRoutes } from "./routes/conversations.ts";
import type { Deps } from "./routes/deps.ts";
import { entityRoutes } from "./routes/entities.ts";
import { healthRoutes } from "./routes/health.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { memoryRoutes } from "./routes/memory.ts";
import { memoryStreamRoutes } from "./routes/memory-stream.ts";
import { mergeRoutes } from "./routes/merges.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { searchRoutes } from "./routes/search.ts";
import { subscriptionRoutes } from "./subscriptions/routes.ts";
import { SubscriptionService } from "./subscriptions/service.ts";
import { systemRoutes } from "./system/routes.ts";
import { SystemService } from "./system/service.ts";
import { roleRoutes } from "./tenants/role-routes.ts";
import { RoleService } from "./tenants/role-service.ts";
import { adminTenantRoutes, tenantRoutes } from "./tenants/routes.ts";
import { TenantService } from "./tenants/service.ts";
import { tokenRoutes } from "./tokens/routes.ts";
import { TokenMintingService } from "./tokens/service.ts";
import { transferRoutes } from "./transfer/routes.ts";
import { TransferService } from "./transfer/service.ts";
import { webhookRoutes } from "./webhooks/routes.ts";
import { WebhookService } from "./webhooks/service.ts";

export { type ComposeOptions, composeRuntime as createRuntime, type Runtime } from "./compose/compose.ts";

/**
 * The HTTP app: telemetry around everything (metrics, spans, the access log), the errors plugin
 * (before any route, or thrown errors come back as 500), then body, then routes.
 */
export function createApp(deps: Deps) {
  const routes = new RouteTable();
  const app = new Elysia({ normalize: false })
    .use(telemetryPlugin(deps.telemetry, deps.clock, deps.foreground))
    .use(errorsPlugin(console.error, routes, [dashboardErrorPage]))
    .use(shutdownGatePlugin(deps.shutdown))
    .use(bodyPlugin())
    .use(
      openapiPlugin(deps.config.version, { embedder: deps.config.embedder, dims: deps.config.embeddingDims }),
    )
    .use(healthRoutes(deps))
    .use(tenantRoutes({ http: deps, tenants: new TenantService(deps), guard: deps.guard }))
    .use(searchRoutes(deps))
    .use(entityRoutes(deps))
    .use(memoryRoutes(deps))
    .use(conversationRoutes(deps))
    .use(mergeRoutes(deps))
    .use(memoryStreamRoutes(deps))
    .use(mcpRoutes(deps))
    .use(adminTenantRoutes({ http: deps, tenants: new TenantService(deps) }))
    .use(tokenRoutes({ http: deps, minting: new TokenMintingService(deps) }))
    .use(transferRoutes({ http: deps, transfer: new TransferService(deps) }))
    .use(eraseRoutes({ http: deps, erasure: new EraseService(deps) }))
    .use(roleRoutes({ http: deps, roles: new RoleService(deps) }))
    .use(auditRoutes({ http: deps, auditLogs: deps.auditLogs }))
    .use(webhookRoutes({ http: deps, webhooks: new WebhookService(deps) }))
    .use(subscriptionRoutes({ http: deps, subscriptions: new SubscriptionService(deps) }))
    .use(operatorMetricRoutes({ http: deps, metrics: new OperatorMetricsService(deps), clock: deps.clock }))
    .use(adminDashboardRoutes(deps))
    .use(adminDashboardTenantRoutes(deps))
    .use(systemRoutes({ http: deps, system: new SystemService(deps) }))
    .use(metricsRoutes(deps))
    .use(ingestRoutes({ http: deps, ingest: deps.ingest, rateLimiter: deps.rateLimiter }));
  routes.load(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;
