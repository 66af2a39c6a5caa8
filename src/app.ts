import { Elysia } from "elysia";
import { auditRoutes } from "./audit/routes.ts";
import type { Runtime } from "./compose/runtime.ts";
import { contextRoutes } from "./context/routes.ts";
import { ContextService } from "./context/service.ts";
import { conversationRoutes } from "./conversations/routes.ts";
import { ConversationService } from "./conversations/service.ts";
import { dashboardErrorPage, dashboardRoutes } from "./dashboard/routes.ts";
import { DashboardService } from "./dashboard/service.ts";
import { dashboardTenantRoutes } from "./dashboard/tenant-routes.ts";
import { entityRoutes } from "./entities/routes.ts";
import { EntityService } from "./entities/service.ts";
import { eraseRoutes } from "./erase/routes.ts";
import { EraseService } from "./erase/service.ts";
import { healthRoutes } from "./health/routes.ts";
import { HealthService } from "./health/service.ts";
import { bodyPlugin } from "./http/body.ts";
import { errorsPlugin } from "./http/errors.ts";
import { openapiPlugin } from "./http/openapi.ts";
import { RouteTable } from "./http/route-table.ts";
import { shutdownGatePlugin } from "./http/shutdown-gate.ts";
import { telemetryPlugin } from "./http/telemetry-plugin.ts";
import { ingestRoutes } from "./ingest/routes.ts";
import { mcpRoutes } from "./mcp/routes.ts";
import { openStreamsOf } from "./memory/open-streams.ts";
import { memoryRoutes } from "./memory/routes.ts";
import { MemoryService } from "./memory/service.ts";
import { memoryStreamRoutes } from "./memory/stream-routes.ts";
import { MemoryStreamService } from "./memory/stream-service.ts";
import { mergeRoutes } from "./merge/routes.ts";
import { MergeService } from "./merge/service.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import { operatorMetricRoutes } from "./operator-metrics/routes.ts";
import { OperatorMetricsService } from "./operator-metrics/service.ts";
import type { Deps } from "./routes/deps.ts";
import { searchRoutes } from "./search/routes.ts";
import { SearchService } from "./search/service.ts";
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
export function createApp(stages: AppStages) {
  const deps = routeBag(stages);
  const routes = new RouteTable();
  // Shared by the HTTP routes and the MCP tools, so both ask the same services.
  const memory = new MemoryService(deps);
  const search = new SearchService(deps);
  const entities = new EntityService(deps);
  const context = new ContextService({ search });
  const conversations = new ConversationService(deps);
  const app = new Elysia({ normalize: false })
    .use(telemetryPlugin(deps.telemetry, deps.clock, routes, deps.foreground))
    .use(errorsPlugin(console.error, routes, [dashboardErrorPage]))
    .use(shutdownGatePlugin(deps.shutdown))
    .use(bodyPlugin())
    .use(
      openapiPlugin(deps.config.version, { embedder: deps.config.embedder, dims: deps.config.embeddingDims }),
    )
    .use(healthRoutes({ http: deps, health: new HealthService(deps) }))
    .use(tenantRoutes({ http: deps, tenants: new TenantService(deps), guard: deps.guard }))
    .use(searchRoutes({ http: deps, search }))
    .use(contextRoutes({ http: deps, context }))
    .use(entityRoutes({ http: deps, entities }))
    .use(memoryRoutes({ http: deps, memory, config: deps.config }))
    .use(conversationRoutes({ http: deps, conversations, config: deps.config }))
    .use(mergeRoutes({ http: deps, merges: new MergeService(deps) }))
    .use(
      memoryStreamRoutes({
        http: deps,
        streams: new MemoryStreamService({ ...deps, streams: openStreamsOf(stages.services) }),
      }),
    )
    .use(mcpRoutes({ http: deps, memory, search, entities, context, conversations, config: deps.config }))
    .use(adminTenantRoutes({ http: deps, tenants: new TenantService(deps) }))
    .use(tokenRoutes({ http: deps, minting: new TokenMintingService(deps) }))
    .use(transferRoutes({ http: deps, transfer: new TransferService(deps) }))
    .use(eraseRoutes({ http: deps, erasure: new EraseService(deps) }))
    .use(roleRoutes({ http: deps, roles: new RoleService(deps) }))
    .use(auditRoutes({ http: deps, auditLogs: deps.auditLogs }))
    .use(webhookRoutes({ http: deps, webhooks: new WebhookService(deps) }))
    .use(subscriptionRoutes({ http: deps, subscriptions: new SubscriptionService(deps) }))
    .use(operatorMetricRoutes({ http: deps, metrics: new OperatorMetricsService(deps), clock: deps.clock }))
    .use(dashboardRoutes({ http: deps, dashboard: new DashboardService(deps) }))
    .use(
      dashboardTenantRoutes({
        http: deps,
        dashboard: new DashboardService(deps),
        webhooks: new WebhookService(deps),
      }),
    )
    .use(systemRoutes({ http: deps, system: new SystemService(deps) }))
    .use(metricsRoutes({ http: deps, metrics: deps.telemetry }))
    .use(ingestRoutes({ http: deps, ingest: deps.ingest, rateLimiter: deps.rateLimiter }));
  routes.load(app.routes);
  return app;
}

export type App = ReturnType<typeof createApp>;

/** What the app is built from: the composition's stores and services (src/compose/). */
export type AppStages = Pick<Runtime, "stores" | "services">;

/**
 * The routes not yet in a feature module take the old bag (src/routes/deps.ts), assembled here
 * from the stages; it goes with the last of them.
 */
function routeBag({ stores, services }: AppStages): Deps {
  const { config, clock, telemetry, secrets, crmMapping, changeFeeds } = stores;
  return { ...services, config, clock, telemetry, secrets, crmMapping, changeFeeds };
}
