/**
 * The composition root: it builds the runtime's parts and hands each its dependencies, in the
 * order they need each other. What the parts do lives with them: the tenant actor in
 * actors/tenant/ (kind.ts), connectors in actors/connectors/drivers.ts, outbound workers in
 * actors/tenant/outbound/workers.ts, erasure in src/tenants/erase-tenant.ts, reload in
 * src/compose/reload.ts, the routes' services in route-deps.ts, start and stop in lifecycle.ts.
 * `src/lib.ts` wraps it for embedding; `src/index.ts` serves it.
 */
import { connectorActors } from "../../actors/connectors/drivers.ts";
import { systemBehaviour } from "../../actors/system.ts";
import { tenantKind } from "../../actors/tenant/kind.ts";
import { outboundWorkers } from "../../actors/tenant/outbound/workers.ts";
import { MessagingBridge } from "../bridge/bridge.ts";
import type { Config, Env } from "../config.ts";
import { ConnectorSupervisor } from "../connectors/supervisor.ts";
import { modelExtraction } from "../conversations/model/configured-extractor.ts";
import { backgroundEmbedder } from "../embedding/background-embedder.ts";
import { configuredEmbedder, type EmbedderConfig } from "../embedding/create-embedder.ts";
import { AppError } from "../errors.ts";
import { CrmMappingHolder } from "../ingest/crm-mapping-holder.ts";
import { IngestPipeline } from "../ingest/deliver.ts";
import { webhookOperations } from "../ingest/webhook-upkeep.ts";
import { ChangeFeeds } from "../memory/change-feed.ts";
import type { AdminEvent } from "../models/admin-event.ts";
import { isoOf } from "../models/common.ts";
import { type RuntimePorts, withDefaults } from "../ports/runtime-ports.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import { ActorSystem } from "../runtime/actor-system.ts";
import { type Clock, systemClock } from "../runtime/clock.ts";
import { ForegroundLoad } from "../runtime/foreground-load.ts";
import { maxOpenTenantsFor, openFileLimit } from "../runtime/open-files.ts";
import { openSecrets } from "../secrets.ts";
import { createJwksResolver } from "../sources/mail/jwks.ts";
import { messagingSource } from "../sources/messaging.ts";
import { findSource } from "../sources/registry.ts";
import { createTelemetry, type Telemetry } from "../telemetry/telemetry.ts";
import { Erasures } from "../tenants/erase-tenant.ts";
import { TenantLifecycle } from "../tenants/lifecycle.ts";
import { DiskSpace } from "../vault/disk-space.ts";
import { SystemStore } from "../vault/system-store.ts";
import { lifecycleOf } from "./lifecycle.ts";
import { reloader } from "./reload.ts";
import { routeDeps } from "./route-deps.ts";
import type { Runtime } from "./runtime.ts";
import { sampleRuntime } from "./runtime-samples.ts";

export type { ConnectorStarts, Runtime, RuntimeDeps } from "./runtime.ts";

export interface ComposeOptions extends Pick<EmbedderConfig, "localModel"> {
  config: Config;
  env: Env;
  clock?: Clock;
  log?: (line: string) => void;
  /** What cluster mode does differently (src/ports/runtime-ports.ts); the single-node defaults for those not given. */
  ports?: Partial<RuntimePorts>;
  /** Metrics, tracing, the access log (src/telemetry/); default: built from `config.telemetry`. */
  telemetry?: Telemetry;
}

export function composeRuntime(options: ComposeOptions): Runtime {
  const { config, env, clock = systemClock, log = console.error } = options;
  const { storage, placement, erasure, figures, readiness } = withDefaults(options.ports);

  // Stores and shared resources.
  const telemetry = options.telemetry ?? createTelemetry(config.telemetry, { log });
  const secrets = openSecrets(env, config.secretsFile);
  const crmMapping = new CrmMappingHolder(config.crmMappingPath, config.crmMappingIsDefault);
  // Every environment is held to its ceiling, and the data directory's disk to its reserve.
  const disk = new DiskSpace(config.dataDir, config.diskReserveBytes);
  const store = new SystemStore(config.dataDir, config.auditLimit, { maxBytes: config.vaultMaxBytes, disk });
  const changeFeeds = new ChangeFeeds();
  const embedder = configuredEmbedder(config, { telemetry, localModel: options.localModel });
  // Vectors are made after the answer, fairly across tenants; `tiered`'s upgrade yields to requests.
  const foreground = new ForegroundLoad(clock);
  const embedding = backgroundEmbedder(embedder, { model: config.embeddingsModel, clock, log, foreground });
  // Conversations' turns are read by a model after their answer, when one is configured.
  const extraction = modelExtraction(config.extractor, { clock, log, telemetry });
  const actors = new ActorSystem({
    clock,
    idleMs: config.actorIdleMs,
    // Domain errors are replies; anything else is a crash and restarts the actor from disk.
    isCrash: (error) => !(error instanceof AppError),
    onFailure: (f) => log(`[actor ${f.kind}:${f.key}] ${f.via} ${f.type} failed: ${errorText(f.error)}`),
    telemetry,
  });
  // Each open tenant holds file descriptors: the least recently used is passivated past the bound.
  const openFiles = openFileLimit();
  const limits = { openFiles, maxOpenTenants: config.maxOpenTenants ?? maxOpenTenantsFor(openFiles) };

  // The tenant actors: a vault opens only where the tenant is served and while it is not being erased.
  const tenants = tenantKind(actors, {
    config,
    storage,
    clock,
    disk,
    openFiles,
    changeFeeds,
    maxActive: limits.maxOpenTenants,
    refusal: (tenantId) => erasures.refusal(tenantId) ?? placement.vaultRefusal(tenantId),
    embedding,
    extraction,
    telemetry,
  });
  const tenant = (tenantId: string) => tenants.ref(tenantId);

  // What runs on its own for a tenant (connectors, outbound workers, the bridge) runs only where
  // the placement port serves it, and stops with the runtime (`stopping`, aborted first).
  const stopping = new AbortController();
  const signal = stopping.signal;
  /** What every actor kind of this part is given. */
  const base = { config, clock, signal, log, telemetry };
  const tenantStatus = (tenantId: string) => store.getTenant(tenantId)?.status;
  const servedHere = (tenantId: string) => placement.servedHere(tenantId);
  const statusHere = (tenantId: string) => (servedHere(tenantId) ? tenantStatus(tenantId) : undefined);
  const connected = connectorActors(actors, { ...base, secrets, tenants, ingest: () => ingest });
  const ingest = new IngestPipeline({
    secrets,
    clock,
    embedder,
    jwks: createJwksResolver(config.mailJwksUrl),
    crmMapping,
    tenant,
    expanders: { mail: connected.mailExpander },
    bodyLimit: config.bodyLimitBytes,
    tenantStatus,
    sourceOf: (id) => (id === messagingSource.id ? messagingSource : findSource(id)),
  });
  // Pausing sources, the delivery log, bulk replay; retention and interrupted resumes in the background.
  const { webhooks, upkeep } = webhookOperations({ config, clock, log, ingest, tenants, store, servedHere });
  const bridge = new MessagingBridge({
    tenantExists: (tenantId) => store.getTenant(tenantId) !== undefined,
    servedHere,
    actor: (tenantId) => connected.bridge.ref(tenantId),
    queueLimit: config.bridgeQueueLimit,
  });
  sampleRuntime(telemetry, { actors, embedding, deliveries: ingest.counters, operations: ingest.figures });
  const { drivers } = connected;
  const connectors = new ConnectorSupervisor({ secrets, tenantStatus: statusHere, drivers, log });
  const audit = (event: Omit<AdminEvent, "at">) =>
    system.ask({ type: "admin.record", event: { at: isoOf(clock.now()), ...event } });
  const outbound = outboundWorkers(actors, { ...base, tenants, feeds: changeFeeds, statusHere, audit });

  // The system actor: tenants, roles, audit; a tenant's creation opens its vault, its deletion erases it.
  const erasures = new Erasures({
    dataDir: config.dataDir,
    tenants,
    connectors,
    stopTenantActors: async (tenantId) => {
      await Promise.all([connected.passivate(tenantId), outbound.stop(tenantId)]);
    },
    followUps: erasure,
  });
  const systemBehaviourOf = () =>
    systemBehaviour({
      store,
      clock,
      // In cluster mode the vault is made only where the tenant is served: elsewhere its owner makes it.
      initTenant: async (tenantId) => {
        if (placement.vaultRefusal(tenantId) === undefined)
          await tenants.ask(tenantId, { type: "tenant.init" });
      },
      discardTenant: (tenantId) => erasures.discardTenant(tenantId),
      eraseTenant: (tenantId) => erasures.eraseTenant(tenantId),
    });
  const forever = { idleMs: Number.POSITIVE_INFINITY };
  const system = actors.kind<SystemProtocol>("system", systemBehaviourOf, forever).ref("system");
  const reload = reloader({ secrets, connectors, crmMapping });

  const deps = routeDeps({
    config,
    clock,
    store,
    tenants,
    embedder,
    secrets,
    ingest,
    webhooks,
    crmMapping,
    system,
    lifecycle: new TenantLifecycle({ system, connectors, audit: outbound.following(audit), erasure }),
    audit,
    reload,
    limits,
    changeFeeds,
    eraseEntries: (tenantId, request, by) => erasures.eraseEntries(tenantId, request, by),
    outbound,
    figures,
    readiness,
    log,
    telemetry,
    foreground,
  });
  const started = { store, actors, tenants, connectors, connectorActors: connected, outbound, embedding };
  const parts = { ...started, placement, stopping, gate: deps.shutdown, webhookUpkeep: upkeep, extraction };
  return { deps, actors, bridge, reload, webhookUpkeep: upkeep, ...lifecycleOf(parts) };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
