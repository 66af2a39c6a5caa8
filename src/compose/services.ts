import { AuditLogs } from "../audit/audit-logs.ts";
import { Authenticator } from "../auth/authenticator.ts";
import { Guard } from "../auth/guard.ts";
import { TokenService } from "../auth/tokens.ts";
import { embedderSignature } from "../embedding/background-embedder.ts";
import type { Embedder } from "../embedding/embedder.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { ShutdownGate } from "../http/shutdown-gate.ts";
import { tenantParamPlugin } from "../http/tenant-param.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import type { EraseReport, EraseRequest } from "../models/erase.ts";
import { localFigures } from "../operator-metrics/service.ts";
import type { OutboundEvents } from "../outbound/outbound.ts";
import type { FiguresReader, RuntimePorts } from "../ports/runtime-ports.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { ForegroundLoad } from "../runtime/foreground-load.ts";
import { rerankStage } from "../search/controls/rerank/configured-reranker.ts";
import type { RerankSearchDeps } from "../search/controls/rerank/rerank-search.ts";
import { TenantDirectory } from "../tenants/directory.ts";
import type { TenantLifecycle } from "../tenants/lifecycle.ts";
import { ExportImport } from "../transfer/export-import.ts";
import type { WebhookOperations } from "../webhooks/operations.ts";
import type { Actors } from "./actors.ts";
import type { Connectors } from "./connectors.ts";
import { type ReadinessReport, readinessOf } from "./readiness.ts";
import type { ReloadReport } from "./reload.ts";
import type { Stores } from "./stores.ts";
import type { System } from "./system.ts";

export type ServicePorts = Pick<RuntimePorts, "figures" | "readiness">;

/**
 * What the routes and the connectors' doors use: made here (auth, the tenant directory, search
 * re-ranking, export and import, figures, readiness, the shutdown gate) or by a stage before.
 */
export interface Services extends HttpKit {
  /** Which tenants exist, their roles, whether a vault was made: read-only. */
  tenants: TenantDirectory;
  /** The admin audit log and the tenants' denial logs, read. */
  auditLogs: AuditLogs;
  tokens: TokenService;
  auth: Authenticator;
  guard: Guard;
  /** Per-tenant rate limits: the auth plugin checks token-bearing routes, the webhook route its deliveries. */
  rateLimiter: RateLimiter;
  /** The re-ranking stage of memory search (src/search/controls/rerank/); none: the fused score alone. */
  rerank?: Omit<RerankSearchDeps, "clock">;
  /** A tenant's export (NDJSON) and its import into an empty tenant. */
  exportImport: ExportImport;
  /**
   * A tenant's dashboard figures (the figures port): its local actor's on a single node; in
   * cluster mode asked of the node serving its partition. Rejects with Unavailable when they
   * cannot be had in time.
   */
  tenantFigures: FiguresReader;
  /** Open-file limit read at start, the bound on open tenant vaults derived from it, and the open count. */
  limits: { openFiles: number; maxOpenTenants: number; openTenants(): number };
  startedAt: number;
  /** `GET /readyz`'s checks, each reported (readiness.ts). */
  readiness(): ReadinessReport;
  /** The stop as HTTP sees it: once begun, readiness fails and new requests are refused (503). */
  shutdown: ShutdownGate;
  // From the stages before: the actors (actors.ts), what brings events in (connectors.ts), the
  // system actor and what it drives (system.ts).
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  embedder: Embedder;
  /** Requests in flight and the last one's time, counted by the request plugin (background work yields). */
  foreground: ForegroundLoad;
  /** Each tenant's outbound-event delivery worker, started and stopped to match its subscriptions. */
  outbound: OutboundEvents;
  /** Records an admin action in the admin audit log; resolves once committed. */
  audit(event: Omit<AdminEvent, "at">): Promise<void>;
  ingest: IngestPipeline;
  /** Pausing sources, the delivery log and bulk replay (docs/webhook-operations.md). */
  webhooks: WebhookOperations;
  system: ActorRef<SystemProtocol>;
  lifecycle: TenantLifecycle;
  reload(): Promise<ReloadReport>;
  /** Erases matching entries of a tenant and compacts its vault before answering. */
  eraseEntries(tenantId: string, request: EraseRequest, by: string): Promise<EraseReport>;
}

/**
 * The fifth stage (compose.ts): what the routes and the connectors' doors use. Auth (tokens,
 * caller, guard, rate limits and their plugins), the tenant directory, search re-ranking, export and
 * import, figures, readiness and the shutdown gate, beside what the stages before built.
 */
export function composeServices(
  stores: Stores,
  actors: Actors,
  connected: Connectors,
  systemStage: System,
  { figures, readiness }: ServicePorts,
): Services {
  const { config, clock, store, log, telemetry } = stores;
  const { tenants, tenant, outbound, embedder } = actors;
  const { system } = systemStage;
  const tokens = new TokenService(config.jwtSecret, clock);
  const auth = new Authenticator(tokens, store);
  const guard = new Guard(store, clock, (denial) => system.ask({ type: "denial.record", denial }));
  const refused = telemetry.metrics.rateLimited;
  const rateLimiter = new RateLimiter(config.rateLimits, clock, (rateClass) =>
    refused.inc({ class: rateClass }),
  );
  const directory = new TenantDirectory(store, config.dataDir);
  const exportImport = new ExportImport({
    ...{ store, system, tenant, clock, dims: config.embeddingDims, log },
    signature: embedderSignature({
      kind: config.embedder,
      dims: config.embeddingDims,
      model: config.embeddingsModel,
    }),
    // The outbound worker holds positions read before the import: it restarts with the tenant.
    restartTenant: async (tenantId) => {
      await outbound.stop(tenantId);
      await tenants.passivate(tenantId);
      await outbound.reconcile(tenantId);
    },
    // An import's line may hold a body's worth of entry or dead letter, in a JSON record.
    limits: { maxLineBytes: config.bodyLimitBytes * 4, maxBodyBytes: config.importLimitBytes },
  });
  const shutdown = new ShutdownGate();
  const { erasures } = systemStage;
  return {
    ...{ embedder, outbound, audit: actors.audit, foreground: actors.foreground },
    ...{ ingest: connected.ingest, webhooks: connected.webhooks },
    ...{ system, lifecycle: systemStage.lifecycle, reload: systemStage.reload },
    eraseEntries: (tenantId, request, by) => erasures.eraseEntries(tenantId, request, by),
    tenants: directory,
    auditLogs: new AuditLogs(store),
    tokens,
    auth,
    guard,
    authPlugin: authPlugin(auth, guard, config.bodyLimitBytes, rateLimiter),
    tenantParam: tenantParamPlugin(directory, guard),
    rateLimiter,
    rerank: rerankStage(config.reranker, { telemetry, log }),
    exportImport,
    tenant,
    limits: { ...actors.limits, openTenants: () => tenants.active().length },
    tenantFigures: figures ?? localFigures({ tenants: directory, tenant }),
    startedAt: clock.now(),
    readiness: readinessOf({ gate: shutdown, store, probe: readiness }),
    shutdown,
  };
}
