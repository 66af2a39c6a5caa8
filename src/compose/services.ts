import { AuditLogs } from "../audit/audit-logs.ts";
import { Authenticator } from "../auth/authenticator.ts";
import { Guard } from "../auth/guard.ts";
import { TokenService } from "../auth/tokens.ts";
import { embedderSignature } from "../embedding/background-embedder.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { ShutdownGate } from "../http/shutdown-gate.ts";
import { tenantParamPlugin } from "../http/tenant-param.ts";
import { localFigures } from "../operator-metrics/service.ts";
import type { RuntimePorts } from "../ports/runtime-ports.ts";
import { rerankStage } from "../search/controls/rerank/configured-reranker.ts";
import { TenantDirectory } from "../tenants/directory.ts";
import { ExportImport } from "../transfer/export-import.ts";
import type { Actors } from "./actors.ts";
import type { Connectors } from "./connectors.ts";
import { readinessOf } from "./readiness.ts";
import type { RuntimeDeps } from "./runtime.ts";
import type { Stores } from "./stores.ts";
import type { System } from "./system.ts";

export type ServicePorts = Pick<RuntimePorts, "figures" | "readiness">;

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
): RuntimeDeps {
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
    ...{ config, clock, store, secrets: stores.secrets, crmMapping: stores.crmMapping, telemetry },
    ...{
      changeFeeds: stores.changeFeeds,
      embedder,
      outbound,
      audit: actors.audit,
      foreground: actors.foreground,
    },
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
