import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { CRM_REQUIRED, crmStreamBehaviour } from "../actors/crm-stream.ts";
import { mailWatchBehaviour } from "../actors/mail-watch.ts";
import { systemBehaviour } from "../actors/system.ts";
import { tenantBehaviour } from "../actors/tenant.ts";
import type { Config, Env } from "./config.ts";
import { createEmbedder } from "./embedding/embedder.ts";
import { AppError } from "./errors.ts";
import { Authenticator, Guard } from "./http/auth.ts";
import { bodyPlugin } from "./http/body.ts";
import { errorsPlugin } from "./http/errors.ts";
import { TokenService } from "./http/tokens.ts";
import { CrmMappingHolder } from "./ingest/crm-mapping-holder.ts";
import { Ingestor, type MailExpander } from "./ingest/ingestor.ts";
import type {
  CrmStatus,
  CrmStreamProtocol,
  MailStatus,
  MailWatchProtocol,
} from "./models/connector-protocol.ts";
import type { SystemProtocol } from "./models/system-protocol.ts";
import type { TenantProtocol } from "./models/tenant-protocol.ts";
import { adminAuditRoutes } from "./routes/admin-audit.ts";
import { adminRoleRoutes } from "./routes/admin-roles.ts";
import { adminTenantRoutes } from "./routes/admin-tenants.ts";
import { adminWebhookRoutes } from "./routes/admin-webhooks.ts";
import type { Deps } from "./routes/deps.ts";
import { healthRoutes } from "./routes/health.ts";
import { memoryRoutes } from "./routes/memory.ts";
import { searchRoutes } from "./routes/search.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { ActorSystem } from "./runtime/actor-system.ts";
import { type Clock, systemClock } from "./runtime/clock.ts";
import { Secrets } from "./secrets.ts";
import { crmSource } from "./sources/crm.ts";
import { createJwksResolver } from "./sources/jwks.ts";
import { SystemStore } from "./vault/system-store.ts";

export interface Runtime {
  deps: Deps;
  actors: ActorSystem;
  /** Starts the connector actors of every tenant whose connector secrets are set (at start-up). */
  startConnectors(): void;
  /** Starts one tenant's connectors (those whose secrets are set) and answers their first status. */
  startConnectorsFor(tenantId: string): Promise<ConnectorStarts>;
  /** Re-reads the CRM mapping file (SIGHUP); returns the reason when the new file is refused. */
  reloadCrmMapping(): string | undefined;
  /** Drains every actor and closes every vault and the system store. */
  stop(): Promise<void>;
}

export interface ConnectorStarts {
  mail?: MailStatus;
  crm?: CrmStatus;
}

/** Secrets that make a tenant's mail watch start (SOURCES.md, `mail` Watch). */
const MAIL_WATCH_SECRETS = [
  "MAIL_CLIENT_ID",
  "MAIL_CLIENT_SECRET",
  "MAIL_REFRESH_TOKEN",
  "MAIL_PUBSUB_TOPIC",
  "MAIL_WATCH_EMAIL",
] as const;

export interface RuntimeOptions {
  config: Config;
  env: Env;
  clock?: Clock;
  log?: (line: string) => void;
}

/** The composition root: builds the actors and the services routes depend on. */
export function createRuntime({
  config,
  env,
  clock = systemClock,
  log = console.error,
}: RuntimeOptions): Runtime {
  const crmMapping = new CrmMappingHolder(config.crmMappingPath, config.crmMappingIsDefault);
  const store = new SystemStore(config.dataDir, config.auditLimit);
  const actors = new ActorSystem({
    clock,
    idleMs: config.actorIdleMs,
    // Domain errors are replies; anything else is a crash and restarts the actor from disk.
    isCrash: (error) => !(error instanceof AppError),
    onFailure: (f) => log(`[actor ${f.kind}:${f.key}] ${f.via} ${f.type} failed: ${errorText(f.error)}`),
  });
  const system = actors
    .kind<SystemProtocol>("system", () => systemBehaviour({ store, clock }), { idleMs: Infinity })
    .ref("system");
  const tenants = actors.kind<TenantProtocol>("tenant", (tenantId) =>
    tenantBehaviour(tenantId, {
      dataDir: config.dataDir,
      clock,
      dims: config.embeddingDims,
      tellSelf: (msg) => tenants.tell(tenantId, msg),
    }),
  );
  const tokens = new TokenService(config.jwtSecret, clock);
  const secrets = new Secrets(env);
  const embedder = createEmbedder({
    kind: config.embedder,
    dims: config.embeddingDims,
    url: config.embeddingsUrl,
    model: config.embeddingsModel,
    apiKey: config.embeddingsApiKey,
  });
  // Connectors: one actor of each kind per tenant, never passivated (they hold streams and timers).
  // Aborting `connectorsStopping` ends their network calls and timers before anything else stops.
  const connectorsStopping = new AbortController();
  const signal = connectorsStopping.signal;
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
        signal,
        log,
      }),
    { idleMs: Infinity },
  );
  const mailExpander: MailExpander = {
    async expand(tenantId, event) {
      try {
        return await mailWatch.ask(tenantId, { type: "mail.expand", event });
      } catch (error) {
        return { result: { ok: false, reason: "mail_expand_failed", detail: errorText(error) } };
      }
    },
  };
  const ingestor = new Ingestor({
    seen: (tenantId, source, eventId) => tenants.ask(tenantId, { type: "webhook.seen", source, eventId }),
    secrets,
    clock,
    embedder,
    jwks: createJwksResolver(config.mailJwksUrl),
    crmMapping,
    mailExpander,
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
        embedder,
        context: () => ingestor.replayContext(crmSource, tenantId),
        signal,
        log,
      }),
    { idleMs: Infinity },
  );
  const startConnectorsFor = async (tenantId: string): Promise<ConnectorStarts> => {
    const started: ConnectorStarts = {};
    if (signal.aborted) return started;
    const [mail, crm] = await Promise.all([
      secrets.has(MAIL_WATCH_SECRETS, tenantId) ? mailWatch.ask(tenantId, { type: "mail.start" }) : undefined,
      secrets.has(CRM_REQUIRED, tenantId) ? crmStream.ask(tenantId, { type: "crm.start" }) : undefined,
    ]);
    if (mail) started.mail = mail;
    if (crm) started.crm = crm;
    return started;
  };
  const deps: Deps = {
    config,
    clock,
    store,
    tokens,
    auth: new Authenticator(tokens, store),
    guard: new Guard(store, clock, (denial) => system.tell({ type: "denial.record", denial })),
    secrets,
    embedder,
    ingestor,
    crmMapping,
    system,
    tenant: (tenantId) => tenants.ref(tenantId),
    startedAt: clock.now(),
  };
  return {
    deps,
    actors,
    startConnectors: () => {
      for (const tenant of store.listTenants()) {
        startConnectorsFor(tenant.tenant_id).catch((error) =>
          log(`[connectors ${tenant.tenant_id}] start failed: ${errorText(error)}`),
        );
      }
    },
    startConnectorsFor,
    reloadCrmMapping: () => crmMapping.reload(),
    stop: async () => {
      // Connectors first: close streams, cancel timers, then let their mailboxes drain.
      connectorsStopping.abort();
      await Promise.all([mailWatch.stopAll(), crmStream.stopAll()]);
      await actors.stopAll();
      await store.close();
    },
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The HTTP app: the errors plugin first (or thrown errors come back as 500), then body, then routes. */
export function createApp(deps: Deps) {
  return new Elysia({ normalize: false })
    .use(errorsPlugin())
    .use(bodyPlugin(deps.config.bodyLimitBytes))
    .use(
      openapi({
        path: "/openapi",
        documentation: {
          info: { title: "Typed-memory runtime", version: deps.config.version },
          components: {
            securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
          },
          security: [{ bearer: [] }],
        },
      }),
    )
    .use(healthRoutes(deps))
    .use(tenantRoutes(deps))
    .use(searchRoutes(deps))
    .use(memoryRoutes(deps))
    .use(adminTenantRoutes(deps))
    .use(adminRoleRoutes(deps))
    .use(adminAuditRoutes(deps))
    .use(adminWebhookRoutes(deps))
    .use(webhookRoutes(deps));
}

export type App = ReturnType<typeof createApp>;
