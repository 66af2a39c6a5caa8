import { Authenticator } from "../auth/authenticator.ts";
import { Guard } from "../auth/guard.ts";
import { TokenService } from "../auth/tokens.ts";
import { embedderSignature } from "../embedding/background-embedder.ts";
import type { Embedder } from "../embedding/embedder.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { ShutdownGate } from "../http/shutdown-gate.ts";
import { tenantParamPlugin } from "../http/tenant-param.ts";
import { MemoryAccess } from "../memory/access.ts";
import type { FiguresReader, ReadinessProbe } from "../ports/runtime-ports.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import { localFigures } from "../routes/admin-metrics.ts";
import type { Deps } from "../routes/deps.ts";
import type { ActorKind } from "../runtime/actor-system.ts";
import { rerankStage } from "../search/controls/rerank/configured-reranker.ts";
import { AuditLogs } from "../tenants/audit-logs.ts";
import { TenantDirectory } from "../tenants/directory.ts";
import { ExportImport } from "../tenants/export-import.ts";
import type { SystemStore } from "../vault/system-store.ts";
import { readinessOf } from "./readiness.ts";
import type { RuntimeDeps } from "./runtime.ts";

/** What compose.ts built that the routes use as it is. */
export type BuiltDeps = Pick<
  Deps,
  | "config"
  | "clock"
  | "secrets"
  | "ingest"
  | "webhooks"
  | "crmMapping"
  | "system"
  | "lifecycle"
  | "audit"
  | "reload"
  | "changeFeeds"
  | "eraseEntries"
  | "outbound"
  | "telemetry"
  | "foreground"
>;

export interface DepsParts extends BuiltDeps {
  store: SystemStore;
  tenants: ActorKind<TenantProtocol>;
  embedder: Embedder;
  limits: { openFiles: number; maxOpenTenants: number };
  /** The figures port; the local tenant actors answer when absent. */
  figures?: FiguresReader;
  /** The readiness port (cluster mode); a single node's own checks only when absent. */
  readiness?: ReadinessProbe;
  log: (line: string) => void;
}

/**
 * The routes' dependencies (src/routes/deps.ts): the services compose.ts built, and those made
 * only for the routes: auth (tokens, caller, guard, rate limits and their plugins), the tenant
 * directory, memory access, export and import, figures, readiness and the shutdown gate.
 */
export function routeDeps(parts: DepsParts): RuntimeDeps {
  const { figures, readiness, log, limits, tenants, ...built } = parts;
  const { config, clock, store, system, outbound, embedder } = built;
  const tenant = (tenantId: string) => tenants.ref(tenantId);
  const tokens = new TokenService(config.jwtSecret, clock);
  const auth = new Authenticator(tokens, store);
  const guard = new Guard(store, clock, (denial) => system.ask({ type: "denial.record", denial }));
  const refused = built.telemetry.metrics.rateLimited;
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
  return {
    ...built,
    tenants: directory,
    auditLogs: new AuditLogs(store),
    tokens,
    auth,
    guard,
    authPlugin: authPlugin(auth, guard, config.bodyLimitBytes, rateLimiter),
    tenantParam: tenantParamPlugin(directory, guard),
    rateLimiter,
    memory: new MemoryAccess({
      ...{ guard, embedder, clock, tenant, telemetry: built.telemetry },
      rerank: rerankStage(config.reranker, { telemetry: built.telemetry, log }),
    }),
    exportImport,
    tenant,
    limits: { ...limits, openTenants: () => tenants.active().length },
    tenantFigures: figures ?? localFigures({ tenants: directory, tenant }),
    startedAt: clock.now(),
    readiness: readinessOf({ gate: shutdown, store, probe: readiness }),
    shutdown,
  };
}
