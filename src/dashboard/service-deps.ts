import type { AuditLogs } from "../audit/audit-logs.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Guard } from "../auth/guard.ts";
import type { Config } from "../config/config.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import type { FiguresReader } from "../ports/runtime-ports.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { SearchService } from "../search/service.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import type { WebhookOperations } from "../webhooks/operations.ts";

/** What the dashboard's service reads: nothing it does not show. */
export interface DashboardServiceDeps {
  config: Pick<Config, "version">;
  clock: Clock;
  tenants: TenantDirectory;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  auditLogs: Pick<AuditLogs, "denials">;
  ingest: Pick<IngestPipeline, "counters">;
  webhooks: Pick<WebhookOperations, "sources" | "idle">;
  /** A tenant's counts and revenue: local on a single node, asked of its node in cluster mode. */
  tenantFigures: FiguresReader;
  auth: Pick<Authenticator, "authenticateToken">;
  guard: Pick<Guard, "requireAdmin">;
  /** The search box: the operator's read path of the search (SearchService.searchAsOperator). */
  search: Pick<SearchService, "searchAsOperator">;
}
