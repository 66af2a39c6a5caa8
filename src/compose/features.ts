/**
 * The sixth stage (compose.ts): each feature module's service (src/<feature>/service.ts), made
 * from its own narrow dependencies, picked here from the stores and the services. The HTTP app
 * (src/compose/http.ts) hands each module's routes its service; the MCP tools share memory's, search's,
 * entities', context's and conversations' with the routes.
 */
import { ContextService } from "../context/service.ts";
import { ConversationService } from "../conversations/service.ts";
import { OperatorActions } from "../dashboard/operator-actions.ts";
import { DashboardService } from "../dashboard/service.ts";
import { EntityService } from "../entities/service.ts";
import { EraseService } from "../erase/service.ts";
import { HealthService } from "../health/service.ts";
import { openStreamsOf } from "../memory/open-streams.ts";
import { MemoryService } from "../memory/service.ts";
import { MemoryStreamService } from "../memory/stream-service.ts";
import { MergeService } from "../merge/service.ts";
import { OperatorMetricsService } from "../operator-metrics/service.ts";
import { SearchService } from "../search/service.ts";
import { SubscriptionService } from "../subscriptions/service.ts";
import { SystemService } from "../system/service.ts";
import { RoleService } from "../tenants/role-service.ts";
import { TenantService } from "../tenants/service.ts";
import { TokenMintingService } from "../tokens/service.ts";
import { TransferService } from "../transfer/service.ts";
import { WebhookService } from "../webhooks/service.ts";
import type { Services } from "./services.ts";
import type { Stores } from "./stores.ts";

export interface Features {
  health: HealthService;
  tenants: TenantService;
  roles: RoleService;
  minting: TokenMintingService;
  memory: MemoryService;
  search: SearchService;
  entities: EntityService;
  context: ContextService;
  conversations: ConversationService;
  merges: MergeService;
  streams: MemoryStreamService;
  transfer: TransferService;
  erasure: EraseService;
  webhooks: WebhookService;
  subscriptions: SubscriptionService;
  metrics: OperatorMetricsService;
  dashboard: DashboardService;
  /** The dashboard's create, mint and delete forms: the admin API's services behind them. */
  operatorActions: OperatorActions;
  system: SystemService;
}

export function composeFeatures(stores: Stores, services: Services): Features {
  const { config, clock, telemetry, changeFeeds } = stores;
  const { guard, embedder, tenant, tenants, tokens, audit } = services;
  const search = new SearchService({ guard, embedder, clock, tenant, telemetry, rerank: services.rerank });
  const { startedAt, limits, readiness } = services;
  const tenantService = new TenantService({ config, tenants, lifecycle: services.lifecycle, tokens });
  const minting = new TokenMintingService({ config, tenants, tokens, audit });
  return {
    health: new HealthService({ config, clock, startedAt, tenants, limits, readiness, guard, tenant }),
    tenants: tenantService,
    roles: new RoleService({ tenants, system: services.system, audit }),
    minting,
    memory: new MemoryService({ guard, embedder, clock, tenant }),
    search,
    entities: new EntityService({ guard, clock, tenant }),
    context: new ContextService({ search }),
    conversations: new ConversationService({ guard, embedder, clock, tenant }),
    merges: new MergeService({ guard, tenant }),
    // Open streams are the runtime's (keyed by its services): the stop ends them first.
    streams: new MemoryStreamService({
      ...{ guard, clock, config, tenants, tenant, changeFeeds },
      streams: openStreamsOf(services),
    }),
    transfer: new TransferService({ exportImport: services.exportImport, audit }),
    erasure: new EraseService({ eraseEntries: services.eraseEntries, audit }),
    webhooks: new WebhookService({ tenant, ingest: services.ingest, webhooks: services.webhooks, audit }),
    subscriptions: new SubscriptionService({ clock, tenant, outbound: services.outbound, audit }),
    metrics: new OperatorMetricsService({ tenants, tenant }),
    dashboard: new DashboardService({
      ...{ config, clock, tenants, tenant, auditLogs: services.auditLogs, ingest: services.ingest },
      ...{ webhooks: services.webhooks, tenantFigures: services.tenantFigures },
      ...{ auth: services.auth, guard, search },
    }),
    operatorActions: new OperatorActions({ config, clock, tenants: tenantService, minting }),
    system: new SystemService({ reload: services.reload, audit }),
  };
}
