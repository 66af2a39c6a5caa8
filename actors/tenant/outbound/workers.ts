import type { Config } from "../../../src/config/config.ts";
import type { ChangeFeeds } from "../../../src/memory/change-feed.ts";
import type { AdminEvent } from "../../../src/models/admin-event.ts";
import { OutboundEvents } from "../../../src/outbound/outbound.ts";
import type { OutboundProtocol } from "../../../src/protocols/outbound-protocol.ts";
import type { TenantProtocol } from "../../../src/protocols/tenant-protocol.ts";
import type { ActorKind, ActorSystem } from "../../../src/runtime/actor-system.ts";
import type { Clock } from "../../../src/runtime/clock.ts";
import type { Telemetry } from "../../../src/telemetry/telemetry.ts";
import { tenantDir } from "../../../src/vault/tenant-paths.ts";
import { outboundBehaviour } from "./delivery-worker.ts";

/** Delay of an outbound event's first retry, before jitter; each further one doubles it. */
const OUTBOUND_RETRY_BASE_MS = 2_000;

export interface OutboundWorkersDeps {
  config: Config;
  clock: Clock;
  tenants: ActorKind<TenantProtocol>;
  feeds: ChangeFeeds;
  /** The tenant's status where its workers run (cluster mode: undefined elsewhere). */
  statusHere: (tenantId: string) => "active" | "suspended" | undefined;
  audit: (event: Omit<AdminEvent, "at">) => Promise<void>;
  /** The runtime stopping: requests end and nothing new starts. */
  signal: AbortSignal;
  log: (line: string) => void;
  telemetry?: Telemetry;
}

/**
 * Outbound events: one delivery worker (`outbound:<tenant>`, delivery-worker.ts) per tenant with
 * active subscriptions, never passivated by idleness (it holds timers), and the service that starts
 * and stops them (src/outbound/outbound.ts).
 */
export function outboundWorkers(actors: ActorSystem, deps: OutboundWorkersDeps): OutboundEvents {
  const { config, signal } = deps;
  const workers: ActorKind<OutboundProtocol> = actors.kind<OutboundProtocol>(
    "outbound",
    (tenantId) =>
      outboundBehaviour(tenantId, {
        clock: deps.clock,
        tenant: deps.tenants.ref(tenantId),
        feeds: deps.feeds,
        tellSelf: (msg) => {
          if (!signal.aborted) workers.tell(tenantId, msg);
        },
        tenantActive: () => deps.statusHere(tenantId) === "active",
        audit: deps.audit,
        maxFailures: config.outboundMaxFailures,
        timeoutMs: config.outboundTimeoutMs,
        backoff: { baseMs: OUTBOUND_RETRY_BASE_MS, maxMs: config.outboundRetryMaxMs },
        signal,
        log: deps.log,
        telemetry: deps.telemetry,
      }),
    { idleMs: Number.POSITIVE_INFINITY },
  );
  return new OutboundEvents({
    workers,
    tenantStatus: deps.statusHere,
    vaultDir: (tenantId) => tenantDir(config.dataDir, tenantId),
    log: deps.log,
  });
}
