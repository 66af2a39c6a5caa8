/**
 * The connector actors of every tenant (the mail watch, the CRM stream, the messaging bridge's
 * mailbox) and the drivers through which the supervisor (src/connectors/supervisor.ts) starts,
 * stops and asks them. Connectors are never passivated by idleness (they hold streams and timers);
 * once `signal` is aborted they send themselves nothing more.
 */
import type { Config } from "../../src/config/config.ts";
import type { ConnectorDriver } from "../../src/connectors/supervisor.ts";
import { connectorDoors } from "../../src/conversations/connector-doors.ts";
import { ConversationDoor } from "../../src/conversations/door.ts";
import type { Expander, IngestPipeline } from "../../src/ingest/deliver.ts";
import type {
  BridgeProtocol,
  CrmStreamProtocol,
  MailWatchProtocol,
} from "../../src/protocols/connector-protocol.ts";
import type { TenantProtocol } from "../../src/protocols/tenant-protocol.ts";
import type { ActorAddress, ActorKind, ActorSystem } from "../../src/runtime/actor-system.ts";
import type { Clock } from "../../src/runtime/clock.ts";
import type { Secrets } from "../../src/secrets/secrets.ts";
import { crmSource } from "../../src/sources/crm/source.ts";
import { messagingSource } from "../../src/sources/messaging.ts";
import type { Telemetry } from "../../src/telemetry/telemetry.ts";
import { CRM_REQUIRED, crmStreamBehaviour } from "./crm-stream/actor.ts";
import { mailWatchBehaviour } from "./mail-watch/actor.ts";
import { messagingBridgeBehaviour } from "./messaging-bridge/actor.ts";

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

export interface ConnectorActorsDeps {
  config: Config;
  clock: Clock;
  secrets: Secrets;
  tenants: ActorKind<TenantProtocol>;
  /** The ingest pipeline: its mail expander reaches the mail watch by address (`mailExpander`). */
  ingest: IngestPipeline;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Connector states counted and platform calls timed (src/telemetry/). */
  telemetry?: Telemetry;
}

export interface ConnectorActors {
  mailWatch: ActorKind<MailWatchProtocol>;
  crmStream: ActorKind<CrmStreamProtocol>;
  bridge: ActorKind<BridgeProtocol>;
  drivers: ConnectorDriver[];
  /** Closes every connector actor of one tenant. */
  passivate(tenantId: string): Promise<void>;
  stopAll(): Promise<void>;
}

/** The mail watch's kind name: the ingest pipeline's mail expander addresses it (`mailExpander`). */
export const MAIL_WATCH = "mail-watch";

/** Mail notifications are expanded (history since the mark) by the tenant's mail watch. */
export function mailExpander(mailWatch: ActorAddress<MailWatchProtocol>): Expander {
  return {
    expand: (tenantId, event) => mailWatch.ask(tenantId, { type: "mail.expand", event }),
    settled: (tenantId, eventId, committed) =>
      mailWatch.tell(tenantId, { type: "mail.settled", eventId, committed }),
  };
}

export function connectorActors(actors: ActorSystem, deps: ConnectorActorsDeps): ConnectorActors {
  const { config, clock, secrets, signal, log, telemetry } = deps;
  const forever = { idleMs: Number.POSITIVE_INFINITY };
  // A thread as a conversation session, for the tenants that turn it on (docs/conversations.md).
  const doors = connectorDoors(
    new ConversationDoor({ secrets, clock, tenant: (id) => deps.tenants.ref(id), log }),
  );
  const mailWatch: ActorKind<MailWatchProtocol> = actors.kind<MailWatchProtocol>(
    MAIL_WATCH,
    (tenantId) =>
      mailWatchBehaviour(tenantId, {
        clock,
        secrets,
        tokenUrl: config.mailOauthTokenUrl,
        apiBaseUrl: config.mailApiBaseUrl,
        tenant: deps.tenants.ref(tenantId),
        tellSelf: (msg) => {
          if (!signal.aborted) mailWatch.tell(tenantId, msg);
        },
        replay: (eventId) => deps.ingest.replay(tenantId, eventId, "mail"),
        converse: doors.mail(tenantId),
        signal,
        log,
        telemetry,
      }),
    forever,
  );
  const crmStream: ActorKind<CrmStreamProtocol> = actors.kind<CrmStreamProtocol>(
    "crm-stream",
    (tenantId) =>
      crmStreamBehaviour(tenantId, {
        clock,
        secrets,
        loginUrl: config.crmLoginUrl,
        tenant: deps.tenants.ref(tenantId),
        tellSelf: (msg) => {
          if (!signal.aborted) crmStream.tell(tenantId, msg);
        },
        deliver: (events, arrival) => {
          const { ingest } = deps;
          return ingest.deliver(crmSource, tenantId, events, {
            ...arrival,
            ctx: ingest.lenientContext(crmSource, tenantId),
          });
        },
        silenceMs: config.streamSilenceMs,
        signal,
        log,
        telemetry,
      }),
    forever,
  );
  const bridge = actors.kind<BridgeProtocol>("messaging-bridge", (tenantId) =>
    messagingBridgeBehaviour({
      clock,
      deliver: (events, arrival) => {
        const { ingest } = deps;
        return ingest.deliver(messagingSource, tenantId, events, {
          ...arrival,
          ctx: ingest.lenientContext(messagingSource, tenantId),
        });
      },
      converse: doors.bridge(tenantId),
    }),
  );
  return {
    mailWatch,
    crmStream,
    bridge,
    drivers: [
      {
        name: "mail",
        required: MAIL_WATCH_SECRETS,
        reads: MAIL_WATCH_SECRETS,
        start: (tenantId) => mailWatch.ask(tenantId, { type: "mail.start" }),
        stop: stopThenPassivate(mailWatch, (tenantId) => mailWatch.ask(tenantId, { type: "mail.stop" })),
        status: (tenantId) => mailWatch.ask(tenantId, { type: "mail.status" }),
      },
      {
        name: "crm",
        required: CRM_REQUIRED,
        reads: CRM_READS,
        start: (tenantId) => crmStream.ask(tenantId, { type: "crm.start" }),
        stop: stopThenPassivate(crmStream, (tenantId) => crmStream.ask(tenantId, { type: "crm.stop" })),
        status: (tenantId) => crmStream.ask(tenantId, { type: "crm.status" }),
      },
    ],
    passivate: async (tenantId) => {
      await Promise.all([
        bridge.passivate(tenantId),
        mailWatch.passivate(tenantId),
        crmStream.passivate(tenantId),
      ]);
    },
    stopAll: async () => {
      await Promise.all([mailWatch.stopAll(), crmStream.stopAll(), bridge.stopAll()]);
    },
  };
}

/** A driver's stop: the connector records its stopped state, then its actor is closed whatever happened. */
function stopThenPassivate(
  kind: { passivate(tenantId: string): Promise<void> },
  stop: (tenantId: string) => Promise<unknown>,
): (tenantId: string) => Promise<void> {
  return async (tenantId) => {
    try {
      await stop(tenantId);
    } finally {
      await kind.passivate(tenantId);
    }
  };
}
