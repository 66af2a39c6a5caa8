/**
 * The third stage (compose.ts): what brings events in. The ingest pipeline (its mail expander
 * addresses the mail watch), the connector actors that deliver into it
 * (actors/connectors/drivers.ts) and their supervisor, the webhook operations (pausing sources,
 * the delivery log, bulk replay; retention and interrupted resumes in the background), and the
 * messaging bridge. Connectors and the bridge run only where the placement port serves the tenant.
 */
import { connectorActors, MAIL_WATCH, mailExpander } from "../../actors/connectors/drivers.ts";
import { MessagingBridge } from "../bridge/bridge.ts";
import { ConnectorSupervisor } from "../connectors/supervisor.ts";
import { IngestPipeline } from "../ingest/deliver.ts";
import { type WebhookUpkeep, webhookOperations } from "../ingest/webhook-upkeep.ts";
import type { MailWatchProtocol } from "../protocols/connector-protocol.ts";
import { createJwksResolver } from "../sources/mail/jwks.ts";
import { messagingSource } from "../sources/messaging.ts";
import { findSource } from "../sources/registry.ts";
import type { WebhookOperations } from "../webhooks/operations.ts";
import type { Actors } from "./actors.ts";
import type { Stores } from "./stores.ts";

export interface Connectors {
  ingest: IngestPipeline;
  /** The connector actors: the mail watch, the CRM stream, the bridge's mailboxes. */
  connected: ReturnType<typeof connectorActors>;
  connectors: ConnectorSupervisor;
  webhooks: WebhookOperations;
  webhookUpkeep: WebhookUpkeep;
  bridge: MessagingBridge;
}

export function connectEvents(stores: Stores, actors: Actors): Connectors {
  const { config, clock, log, telemetry, secrets, store } = stores;
  const { tenants, tenantStatus, servedHere } = actors;
  const ingest = new IngestPipeline({
    secrets,
    clock,
    embedder: actors.embedder,
    jwks: createJwksResolver(config.mailJwksUrl),
    crmMapping: stores.crmMapping,
    tenant: actors.tenant,
    expanders: { mail: mailExpander(actors.actors.address<MailWatchProtocol>(MAIL_WATCH)) },
    bodyLimit: config.bodyLimitBytes,
    tenantStatus,
    sourceOf: (id) => (id === messagingSource.id ? messagingSource : findSource(id)),
  });
  const base = { config, clock, signal: actors.stopping.signal, log, telemetry };
  const connected = connectorActors(actors.actors, { ...base, secrets, tenants, ingest });
  const { webhooks, upkeep } = webhookOperations({ config, clock, log, ingest, tenants, store, servedHere });
  const bridge = new MessagingBridge({
    tenantExists: (tenantId) => store.getTenant(tenantId) !== undefined,
    servedHere,
    actor: (tenantId) => connected.bridge.ref(tenantId),
    queueLimit: config.bridgeQueueLimit,
  });
  const { drivers } = connected;
  const connectors = new ConnectorSupervisor({ secrets, tenantStatus: actors.statusHere, drivers, log });
  return { ingest, connected, connectors, webhooks, webhookUpkeep: upkeep, bridge };
}
