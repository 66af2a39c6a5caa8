/**
 * The composition root: the actor system, the services routes depend on, the connectors and the
 * messaging bridge. `src/lib.ts` wraps it for embedding; `src/index.ts` serves it.
 */
import { CRM_REQUIRED, crmStreamBehaviour } from "../actors/connectors/crm-stream/actor.ts";
import { mailWatchBehaviour } from "../actors/connectors/mail-watch/actor.ts";
import { messagingBridgeBehaviour } from "../actors/connectors/messaging-bridge/actor.ts";
import { systemBehaviour } from "../actors/system.ts";
import { outboundBehaviour } from "../actors/tenant/outbound/delivery-worker.ts";
import { startTenant } from "../actors/tenant/tenant.ts";
import { Authenticator } from "./auth/authenticator.ts";
import { Guard } from "./auth/guard.ts";
import { TokenService } from "./auth/tokens.ts";
import { MessagingBridge } from "./bridge/bridge.ts";
import { type Config, ConfigError, type Env } from "./config.ts";
import { type ConnectorDriver, ConnectorSupervisor } from "./connectors/supervisor.ts";
import { createEmbedder } from "./embedding/create-embedder.ts";
import { AppError, NotFound } from "./errors.ts";
import { authPlugin } from "./http/auth-plugin.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { tenantParamPlugin } from "./http/tenant-param.ts";
import { CrmMappingHolder } from "./ingest/crm-mapping-holder.ts";
import { type Expander, IngestPipeline } from "./ingest/deliver.ts";
import { MemoryAccess } from "./memory/access.ts";
import { ChangeFeeds } from "./memory/change-feed.ts";
import { isoOf } from "./models/common.ts";
import type { EraseReport, EraseRequest } from "./models/erase.ts";
import { OutboundEvents } from "./outbound/outbound.ts";
import { type RuntimePorts, withDefaults } from "./ports.ts";
import type {
  BridgeProtocol,
  CrmStatus,
  CrmStreamProtocol,
  MailStatus,
  MailWatchProtocol,
} from "./protocols/connector-protocol.ts";
import type { OutboundProtocol } from "./protocols/outbound-protocol.ts";
import type { SystemProtocol } from "./protocols/system-protocol.ts";
import type { TenantProtocol } from "./protocols/tenant-protocol.ts";
import { localFigures } from "./routes/admin-metrics.ts";
import type { Deps, ReloadReport } from "./routes/deps.ts";
import { ActorSystem } from "./runtime/actor-system.ts";
import { type Clock, systemClock } from "./runtime/clock.ts";
import { maxOpenTenantsFor, openFileLimit, roomForTenant } from "./runtime/open-files.ts";
import { Secrets } from "./secrets.ts";
import { SecretsFileError } from "./secrets-file.ts";
import { crmSource } from "./sources/crm/source.ts";
import { createJwksResolver } from "./sources/mail/jwks.ts";
import { messagingSource } from "./sources/messaging.ts";
import { findSource } from "./sources/registry.ts";
import { AuditLogs } from "./tenants/audit-logs.ts";
import { TenantDirectory } from "./tenants/directory.ts";
import { ExportImport } from "./tenants/export-import.ts";
import { TenantLifecycle } from "./tenants/lifecycle.ts";
import { compactionPending } from "./vault/compact.ts";
import { DiskSpace } from "./vault/disk-space.ts";
import { SystemStore } from "./vault/system-store.ts";
import { removeTenantDir, tenantDir } from "./vault/tenant-paths.ts";

/** The routes' dependencies, and the system store itself for what runs beside them (cluster mode, tests). */
export interface RuntimeDeps extends Deps {
  store: SystemStore;
}

export interface Runtime {
  deps: RuntimeDeps;
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
}

export interface ConnectorStarts {
  mail?: MailStatus;
  crm?: CrmStatus;
}

/** Delay of an outbound event's first retry, before jitter; each further one doubles it. */
const OUTBOUND_RETRY_BASE_MS = 2_000;

/** Secrets that make a tenant's mail watch start (SOURCES.md, `mail` Watch). */
const MAIL_WATCH_SECRETS = [
  "MAIL_CLIENT_ID",
  "MAIL_CLIENT_SECRET",
  "MAIL_REFRESH_TOKEN",
  "MAIL_PUBSUB_TOPIC",
  "MAIL_WATCH_EMAIL",
] as const;
const CRM_READS = [
  ...CRM_REQUIRED,
  "CRM_LOGIN_URL",
  "CRM_STREAM_URL",
  "CRM_STREAM_CHANNELS",
  "CRM_API_VERSION",
];

export interface ComposeOptions {
  config: Config;
  env: Env;
  clock?: Clock;
  log?: (line: string) => void;
  /** What cluster mode does differently (src/ports.ts); the single-node defaults for those not given. */
  ports?: Partial<RuntimePorts>;
}

export function composeRuntime({
  config,
  env,
  clock = systemClock,
  log = console.error,
  ports,
}: ComposeOptions): Runtime {
  const { storage, placement, erasure, figures } = withDefaults(ports);
  const secrets = openSecrets(env, config.secretsFile);
  const crmMapping = new CrmMappingHolder(config.crmMappingPath, config.crmMappingIsDefault);
  // Every environment is held to its ceiling, and the data directory's disk to its reserve.
  const disk = new DiskSpace(config.dataDir, config.diskReserveBytes);
  const store = new SystemStore(config.dataDir, config.auditLimit, { maxBytes: config.vaultMaxBytes, disk });
  const actors = new ActorSystem({
    clock,
    idleMs: config.actorIdleMs,
    // Domain errors are replies; anything else is a crash and restarts the actor from disk.
    isCrash: (error) => !(error instanceof AppError),
    onFailure: (f) => log(`[actor ${f.kind}:${f.key}] ${f.via} ${f.type} failed: ${errorText(f.error)}`),
  });
  // Each open tenant holds file descriptors: the least recently used is passivated past the bound.
  const openFiles = openFileLimit();
  const limits = { openFiles, maxOpenTenants: config.maxOpenTenants ?? maxOpenTenantsFor(openFiles) };
  /** Tenants being erased: their vault must not be opened again meanwhile. */
  const erasing = new Set<string>();
  /** Each tenant's committed changes, for whoever follows them live. */
  const changeFeeds = new ChangeFeeds();
  const tenants = actors.kind<TenantProtocol>(
    "tenant",
    (tenantId) => {
      if (erasing.has(tenantId)) throw new NotFound("this tenant is being deleted");
      // Cluster mode: a vault is opened only where its partition is served (src/cluster/local-copies.ts).
      const refused = placement.vaultRefusal(tenantId);
      if (refused) throw refused;
      return startTenant(tenantId, {
        dataDir: config.dataDir,
        storage,
        clock,
        dims: config.embeddingDims,
        roomToOpen: () => roomForTenant(openFiles),
        tellSelf: (msg) => tenants.tell(tenantId, msg),
        onCommitted: (changes) => changeFeeds.publish(tenantId, changes),
        maxBytes: config.vaultMaxBytes,
        disk,
      });
    },
    { maxActive: limits.maxOpenTenants },
  );
  const tokens = new TokenService(config.jwtSecret, clock);
  const embedder = createEmbedder({
    kind: config.embedder,
    dims: config.embeddingDims,
    url: config.embeddingsUrl,
    model: config.embeddingsModel,
    apiKey: config.embeddingsApiKey,
  });
  // Connectors: one actor of each kind per tenant, never passivated by idleness (they hold streams
  // and timers). Aborting `connectorsStopping` ends their network calls and timers before anything else stops.
  const connectorsStopping = new AbortController();
  const signal = connectorsStopping.signal;
  const tenantStatus = (tenantId: string) => store.getTenant(tenantId)?.status;
  // Cluster mode: what runs on its own (connectors, outbound workers, the bridge) runs only at the
  // tenant's owner, where the placement port says it is served.
  const servedHere = (tenantId: string) => placement.servedHere(tenantId);
  const statusHere = (tenantId: string) => (servedHere(tenantId) ? tenantStatus(tenantId) : undefined);
  const mailWatch = actors.kind<MailWatchProtocol>(
    "mail-watch",
    (tenantId) =>
      mailWatchBehaviour(tenantId, {
        clock,
        secrets,
        tokenUrl: config.mailOauthTokenUrl,
        apiBaseUrl: config.mailApiBaseUrl,
        tenant: tenants.ref(tenantId),
        tellSelf: (msg) => {
          if (!signal.aborted) mailWatch.tell(tenantId, msg);
        },
        replay: (eventId) => ingest.replay(tenantId, eventId, "mail"),
        signal,
        log,
      }),
    { idleMs: Number.POSITIVE_INFINITY },
  );
  const mailExpander: Expander = {
    expand: (tenantId, event) => mailWatch.ask(tenantId, { type: "mail.expand", event }),
    settled: (tenantId, eventId, committed) =>
      mailWatch.tell(tenantId, { type: "mail.settled", eventId, committed }),
  };
  const ingest = new IngestPipeline({
    secrets,
    clock,
    embedder,
    jwks: createJwksResolver(config.mailJwksUrl),
    crmMapping,
    tenant: (tenantId) => tenants.ref(tenantId),
    expanders: { mail: mailExpander },
    bodyLimit: config.bodyLimitBytes,
    tenantStatus,
    sourceOf: (id) => (id === messagingSource.id ? messagingSource : findSource(id)),
  });
  const crmStream = actors.kind<CrmStreamProtocol>(
    "crm-stream",
    (tenantId) =>
      crmStreamBehaviour(tenantId, {
        clock,
        secrets,
        loginUrl: config.crmLoginUrl,
        tenant: tenants.ref(tenantId),
        tellSelf: (msg) => {
          if (!signal.aborted) crmStream.tell(tenantId, msg);
        },
        deliver: (events, arrival) =>
          ingest.deliver(crmSource, tenantId, events, {
            ...arrival,
            ctx: ingest.lenientContext(crmSource, tenantId),
          }),
        silenceMs: config.streamSilenceMs,
        signal,
        log,
      }),
    { idleMs: Number.POSITIVE_INFINITY },
  );
  const bridgeActors = actors.kind<BridgeProtocol>("messaging-bridge", (tenantId) =>
    messagingBridgeBehaviour({
      clock,
      deliver: (events, arrival) =>
        ingest.deliver(messagingSource, tenantId, events, {
          ...arrival,
          ctx: ingest.lenientContext(messagingSource, tenantId),
        }),
    }),
  );
  const bridge = new MessagingBridge({
    tenantExists: (tenantId) => store.getTenant(tenantId) !== undefined,
    servedHere,
    actor: (tenantId) => bridgeActors.ref(tenantId),
    queueLimit: config.bridgeQueueLimit,
  });
  const drivers: ConnectorDriver[] = [
    {
      name: "mail",
      required: MAIL_WATCH_SECRETS,
      reads: MAIL_WATCH_SECRETS,
      start: (tenantId) => mailWatch.ask(tenantId, { type: "mail.start" }),
      stop: async (tenantId) => {
        try {
          await mailWatch.ask(tenantId, { type: "mail.stop" });
        } finally {
          await mailWatch.passivate(tenantId);
        }
      },
      status: (tenantId) => mailWatch.ask(tenantId, { type: "mail.status" }),
    },
    {
      name: "crm",
      required: CRM_REQUIRED,
      reads: CRM_READS,
      start: (tenantId) => crmStream.ask(tenantId, { type: "crm.start" }),
      stop: async (tenantId) => {
        try {
          await crmStream.ask(tenantId, { type: "crm.stop" });
        } finally {
          await crmStream.passivate(tenantId);
        }
      },
      status: (tenantId) => crmStream.ask(tenantId, { type: "crm.status" }),
    },
  ];
  const connectors = new ConnectorSupervisor({ secrets, tenantStatus: statusHere, drivers, log });
  // Outbound events: one delivery worker per tenant with active subscriptions (actors/outbound.ts).
  const outboundWorkers = actors.kind<OutboundProtocol>(
    "outbound",
    (tenantId) =>
      outboundBehaviour(tenantId, {
        clock,
        tenant: tenants.ref(tenantId),
        feeds: changeFeeds,
        tellSelf: (msg) => {
          if (!signal.aborted) outboundWorkers.tell(tenantId, msg);
        },
        tenantActive: () => statusHere(tenantId) === "active",
        audit: (event) => audit(event),
        maxFailures: config.outboundMaxFailures,
        timeoutMs: config.outboundTimeoutMs,
        backoff: { baseMs: OUTBOUND_RETRY_BASE_MS, maxMs: config.outboundRetryMaxMs },
        signal,
        log,
      }),
    { idleMs: Number.POSITIVE_INFINITY },
  );
  const outbound = new OutboundEvents({
    workers: outboundWorkers,
    tenantStatus: statusHere,
    vaultDir: (tenantId) => tenantDir(config.dataDir, tenantId),
    log,
  });
  const eraseTenant = async (tenantId: string) => {
    await connectors.reconcile(tenantId);
    const health = await tenants.ask(tenantId, { type: "tenant.health" });
    erasing.add(tenantId);
    try {
      await Promise.all([
        bridgeActors.passivate(tenantId),
        mailWatch.passivate(tenantId),
        crmStream.passivate(tenantId),
        outbound.stop(tenantId),
      ]);
      await tenants.passivate(tenantId);
      removeTenantDir(config.dataDir, tenantId);
    } finally {
      erasing.delete(tenantId);
    }
    return { entries: health.vault.entries, dead_letters: health.dead_letters };
  };
  /**
   * Erasure, then a restart of the tenant actor (it compacts the vault before it opens it again),
   * then the erasure port's follow-ups (cluster mode: the partition's compaction).
   */
  const eraseEntries = async (tenantId: string, request: EraseRequest, by: string): Promise<EraseReport> => {
    const report = await tenants.ask(tenantId, { type: "memory.erase", request, by });
    if (compactionPending(tenantDir(config.dataDir, tenantId))) {
      await tenants.passivate(tenantId);
      await tenants.ask(tenantId, { type: "tenant.init" });
    }
    await erasure.afterErase(tenantId, report);
    return report;
  };
  const system = actors
    .kind<SystemProtocol>(
      "system",
      () =>
        systemBehaviour({
          store,
          clock,
          // A tenant is recorded only once its vault exists, so a failed open leaves nothing half-made.
          // In cluster mode only where its partition is served: elsewhere its owner opens it.
          initTenant: async (tenantId) => {
            if (placement.vaultRefusal(tenantId) === undefined)
              await tenants.ask(tenantId, { type: "tenant.init" });
          },
          discardTenant: async (tenantId) => {
            // The new tenant's actor may hold its vault open (it was opened before the tenant was recorded).
            await tenants.passivate(tenantId);
            removeTenantDir(config.dataDir, tenantId);
          },
          eraseTenant,
        }),
      { idleMs: Number.POSITIVE_INFINITY },
    )
    .ref("system");
  const audit = (event: Parameters<Deps["audit"]>[0]) =>
    system.ask({ type: "admin.record", event: { at: isoOf(clock.now()), ...event } });
  const reload = async (): Promise<ReloadReport> => {
    const report: ReloadReport = { secrets: { reloaded: false }, crm_mapping: { reloaded: false } };
    try {
      const changed = secrets.reload();
      const connectorChanges: Record<string, unknown> = {};
      for (const tenantId of changed) {
        const changes = await connectors.reconcile(tenantId);
        if (Object.keys(changes).length > 0) connectorChanges[tenantId] = changes;
      }
      report.secrets = {
        reloaded: secrets.reloadable,
        tenants_changed: changed.size,
        connectors: connectorChanges,
      };
    } catch (error) {
      report.secrets = { reloaded: false, error: errorText(error) };
    }
    const refused = crmMapping.reload();
    report.crm_mapping = refused ? { reloaded: false, error: refused } : { reloaded: true };
    return report;
  };
  const authenticator = new Authenticator(tokens, store);
  const guard = new Guard(store, clock, (denial) => system.ask({ type: "denial.record", denial }));
  const rateLimiter = new RateLimiter(config.rateLimits, clock);
  const directory = new TenantDirectory(store, config.dataDir);
  const deps: RuntimeDeps = {
    config,
    clock,
    store,
    tenants: directory,
    auditLogs: new AuditLogs(store),
    tokens,
    auth: authenticator,
    guard,
    authPlugin: authPlugin(authenticator, guard, config.bodyLimitBytes, rateLimiter),
    tenantParam: tenantParamPlugin(directory, guard),
    rateLimiter,
    memory: new MemoryAccess({ guard, embedder, clock, tenant: (tenantId) => tenants.ref(tenantId) }),
    secrets,
    embedder,
    // An import's line may hold a body's worth of entry or dead letter, in a JSON record.
    exportImport: new ExportImport({
      store,
      system,
      tenant: (tenantId) => tenants.ref(tenantId),
      // The outbound worker holds positions read before the import: it restarts with the tenant.
      restartTenant: async (tenantId) => {
        await outbound.stop(tenantId);
        await tenants.passivate(tenantId);
        await outbound.reconcile(tenantId);
      },
      clock,
      dims: config.embeddingDims,
      limits: { maxLineBytes: config.bodyLimitBytes * 4, maxBodyBytes: config.importLimitBytes },
      log,
    }),
    ingest,
    crmMapping,
    system,
    tenant: (tenantId) => tenants.ref(tenantId),
    lifecycle: new TenantLifecycle({ system, connectors, audit: outbound.following(audit), erasure }),
    audit,
    reload,
    limits: { ...limits, openTenants: () => tenants.active().length },
    changeFeeds,
    eraseEntries,
    outbound,
    tenantFigures:
      figures ?? localFigures({ tenants: directory, tenant: (tenantId) => tenants.ref(tenantId) }),
    startedAt: clock.now(),
  };
  return {
    deps,
    actors,
    bridge,
    startConnectors: () => {
      for (const tenant of store.listTenants()) void connectors.reconcile(tenant.tenant_id);
      outbound.startAll(store.listTenants().map((t) => t.tenant_id));
    },
    startConnectorsFor: async (tenantId) => {
      if (signal.aborted) return {};
      await connectors.reconcile(tenantId);
      return (await connectors.statuses(tenantId)) as ConnectorStarts;
    },
    reload,
    passivateTenant: (tenantId) => tenants.passivate(tenantId),
    placementChanged: async (tenantIds) => {
      if (signal.aborted) return;
      await Promise.all(
        tenantIds.map(async (tenantId) => {
          await Promise.all([connectors.reconcile(tenantId), outbound.reconcile(tenantId)]);
          // Its queued events were refused once the partition left; new ones are refused up front.
          if (!servedHere(tenantId)) await bridgeActors.passivate(tenantId);
        }),
      );
    },
    stop: async () => {
      // Connectors first: close streams, cancel timers, then let their mailboxes drain.
      connectors.halt();
      connectorsStopping.abort();
      await Promise.all([
        mailWatch.stopAll(),
        crmStream.stopAll(),
        bridgeActors.stopAll(),
        outbound.stopAll(),
      ]);
      await actors.stopAll();
      await store.close();
    },
  };
}

/** The secrets of the environment and the secrets file; a refused file stops the start. */
function openSecrets(env: Env, file: string | undefined): Secrets {
  try {
    return new Secrets(env, file);
  } catch (error) {
    if (error instanceof SecretsFileError)
      throw new ConfigError(`MEMORY_RUNTIME_SECRETS_FILE: ${error.message}`);
    throw error;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
