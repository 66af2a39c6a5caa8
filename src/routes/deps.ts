import type { AuditLogs } from "../audit/audit-logs.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Guard } from "../auth/guard.ts";
import type { TokenService } from "../auth/tokens.ts";
import type { ReadinessReport } from "../compose/readiness.ts";
import type { ReloadReport } from "../compose/reload.ts";
import type { Config } from "../config.ts";
import type { Embedder } from "../embedding/embedder.ts";
import type { authPlugin } from "../http/auth-plugin.ts";
import type { RateLimiter } from "../http/rate-limit.ts";
import type { ShutdownGate } from "../http/shutdown-gate.ts";
import type { tenantParamPlugin } from "../http/tenant-param.ts";
import type { CrmMappingHolder } from "../ingest/crm-mapping-holder.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import type { ChangeFeeds } from "../memory/change-feed.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import type { EraseReport, EraseRequest } from "../models/erase.ts";
import type { OutboundEvents } from "../outbound/outbound.ts";
import type { FiguresReader } from "../ports/runtime-ports.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { ForegroundLoad } from "../runtime/foreground-load.ts";
import type { RerankSearchDeps } from "../search/controls/rerank/rerank-search.ts";
import type { Secrets } from "../secrets.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import type { TenantLifecycle } from "../tenants/lifecycle.ts";
import type { ExportImport } from "../transfer/export-import.ts";
import type { WebhookOperations } from "../webhooks/operations.ts";

export type { ReloadReport } from "../compose/reload.ts";

/**
 * Everything a route plugin may use. Routes validate, authorise and ask a service or an actor:
 * nothing more (never the system store or the disk themselves).
 */
export interface Deps {
  config: Config;
  clock: Clock;
  /** Which tenants exist, their roles, whether a vault was made: read-only. */
  tenants: TenantDirectory;
  /** The admin audit log and the tenants' denial logs, read. */
  auditLogs: AuditLogs;
  tokens: TokenService;
  auth: Authenticator;
  guard: Guard;
  /** The named auth plugin (one per app): routes declare `{ auth: "caller" | "admin" }`. */
  authPlugin: ReturnType<typeof authPlugin>;
  /** The named `{tenant_id}` plugin (one per app): routes declare `{ tenant: "any" | "own" }`. */
  tenantParam: ReturnType<typeof tenantParamPlugin>;
  /** Per-tenant rate limits: the auth plugin checks token-bearing routes, the webhook route its deliveries. */
  rateLimiter: RateLimiter;
  /** Metrics, tracing and the access log (src/telemetry/): `GET /metrics` and the request plugin. */
  telemetry: Telemetry;
  /** Requests in flight and the last one's time, counted by the request plugin (background work yields). */
  foreground?: ForegroundLoad;
  /** The re-ranking stage of memory search (src/search/controls/rerank/); none: the fused score alone. */
  rerank?: Omit<RerankSearchDeps, "clock">;
  secrets: Secrets;
  embedder: Embedder;
  ingest: IngestPipeline;
  /** Pausing sources, the delivery log and bulk replay (docs/webhook-operations.md). */
  webhooks: WebhookOperations;
  crmMapping: CrmMappingHolder;
  system: ActorRef<SystemProtocol>;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  lifecycle: TenantLifecycle;
  /** Records an admin action in the admin audit log; resolves once committed. */
  audit(event: Omit<AdminEvent, "at">): Promise<void>;
  reload(): Promise<ReloadReport>;
  /** Open-file limit read at start, the bound on open tenant vaults derived from it, and the open count. */
  limits: { openFiles: number; maxOpenTenants: number; openTenants(): number };
  startedAt: number;
  /** Each tenant's committed changes, live (the stream, outbound events). */
  changeFeeds: ChangeFeeds;
  /** Erases matching entries of a tenant and compacts its vault before answering. */
  eraseEntries(tenantId: string, request: EraseRequest, by: string): Promise<EraseReport>;
  /** Each tenant's outbound-event delivery worker, started and stopped to match its subscriptions. */
  outbound: OutboundEvents;
  /** A tenant's export (NDJSON) and its import into an empty tenant. */
  exportImport: ExportImport;
  /**
   * A tenant's dashboard figures (the figures port, src/ports/runtime-ports.ts): its local actor's on a single
   * node; in cluster mode asked of the node serving its partition (its vault is there only).
   * Rejects with Unavailable when they cannot be had in time.
   */
  tenantFigures: FiguresReader;
  /** `GET /readyz`'s checks, each reported (src/compose/readiness.ts). */
  readiness(): ReadinessReport;
  /** The stop as HTTP sees it: once begun, readiness fails and new requests are refused (503). */
  shutdown: ShutdownGate;
}
