/**
 * What the composition root (compose.ts) builds: its stages' outputs the rest reads (the stores,
 * the services), the actor system and the runtime's lifecycle. `src/lib.ts` wraps it for
 * embedding and builds the HTTP app from the services; cluster mode drives placement.
 */
import type { MessagingBridge } from "../bridge/bridge.ts";
import type { WebhookUpkeep } from "../ingest/webhook-upkeep.ts";
import type { CrmStatus, MailStatus } from "../protocols/connector-protocol.ts";
import type { ActorSystem } from "../runtime/actor-system.ts";
import type { Features } from "./features.ts";
import type { ReloadReport } from "./reload.ts";
import type { Services } from "./services.ts";
import type { Stores } from "./stores.ts";

export interface Runtime {
  /** The first stage: configuration, clock, telemetry, secrets, the system store, change feeds. */
  stores: Stores;
  /** What the routes and the connectors' doors use (services.ts). */
  services: Services;
  /** Each feature module's service (features.ts), handed to its routes by the HTTP app. */
  features: Features;
  actors: ActorSystem;
  bridge: MessagingBridge;
  /** Brings every tenant's connectors in line with its secrets (at start). */
  startConnectors(): void;
  /** Brings one tenant's connectors in line and answers the statuses of those running. */
  startConnectorsFor(tenantId: string): Promise<ConnectorStarts>;
  /** Re-reads the secrets file and the CRM mapping (SIGHUP, `POST /admin/reload`). */
  reload(): Promise<ReloadReport>;
  /** Closes a tenant's actor and vault (cluster mode: before its partition's data is restored). */
  passivateTenant(tenantId: string): Promise<void>;
  /**
   * Cluster mode: these tenants' partition started or stopped being served here (the placement
   * port answers differently now): their connectors, outbound workers and bridge follow it.
   */
  placementChanged(tenantIds: readonly string[]): Promise<void>;
  /** Drains every actor and closes every vault and the system store. */
  stop(): Promise<void>;
  /** Retention of the delivery log and dead letters, and resumes a restart cut short (started with the connectors). */
  webhookUpkeep: WebhookUpkeep;
}

export interface ConnectorStarts {
  mail?: MailStatus;
  crm?: CrmStatus;
}
