/**
 * The runtime as a library: embed the whole service (HTTP app, actors, connectors, the messaging
 * bridge) in a program of your own.
 *
 *   import { createRuntime } from "typed-memory-runtime";
 *   const runtime = createRuntime({ env: { MEMORY_RUNTIME_JWT_SECRET: "…32+ bytes…" } });
 *   const { url } = runtime.listen(8080);          // optional: the HTTP API
 *   await runtime.bridge.deliver(tenantId, { type: "message", channel: "C1", user: "U1", text: "hi", ts: "1.1" });
 *   await runtime.stop();
 *
 * `env` (the variables of CONTRACT §9 and the per-tenant secrets) is enough on its own: `config` is
 * derived from it exactly as the server derives it from its environment.
 */
import pkg from "../package.json" with { type: "json" };
import type { BridgeResult, MessagingBridge } from "./bridge/bridge.ts";
import { composeRuntime, type Runtime } from "./compose/compose.ts";
import { type App, createApp } from "./compose/http.ts";
import type { ReloadReport } from "./compose/reload.ts";
import { type Config, type Env, loadConfig } from "./config/config.ts";
import type { LocalModel } from "./embedding/local-model.ts";
import { bindOrRefuse, serverOptions } from "./http/server-options.ts";
import { type DrainReport, drainRequests } from "./http/shutdown-gate.ts";
import { closeMemoryStreams } from "./memory/open-streams.ts";
import type { RuntimePorts } from "./ports/runtime-ports.ts";
import type { Clock } from "./runtime/clock.ts";
import type { LogSink } from "./telemetry/access-log.ts";
import { createTelemetry, type Telemetry } from "./telemetry/telemetry.ts";
import { type DataDirLock, holdingDataDir } from "./vault/data-dir-lock.ts";

export { BridgeEventInvalid, BridgeNotServedHere, BridgeQueueFull } from "./bridge/bridge.ts";
export type { BridgeEvent } from "./bridge/events.ts";
export { type Config, ConfigError, type Env } from "./config/config.ts";
export { AppError, NotFound, ValidationFailed } from "./errors/domain-errors.ts";
export { PortInUse } from "./http/server-options.ts";
export { type Clock, ManualClock, systemClock } from "./runtime/clock.ts";
export { DataDirInUse, type DataDirLock, lockDataDir } from "./vault/data-dir-lock.ts";
export type { App, BridgeResult, DrainReport, ReloadReport };

export interface RuntimeOptions {
  /** Variables (CONTRACT §9 and per-tenant secrets); default: the process environment. */
  env?: Env;
  /** Derived from `env` when absent. */
  config?: Config;
  clock?: Clock;
  /** Where log lines go (never a secret); default: stderr. */
  log?: (line: string) => void;
  /**
   * What differs from a single node (tenant storage, placement, erasure follow-ups, figures: see
   * src/ports/runtime-ports.ts); cluster mode passes its own (src/cluster/serve.ts). Default: a single node.
   */
  ports?: Partial<RuntimePorts>;
  /**
   * Where the access log's lines go (docs/observability.md#access-log), one call per line: the
   * server passes stdout; by default none is written, so your program's stdout stays its own.
   */
  accessLog?: LogSink;
  /** Metrics, tracing and the access log, built by you (tests); default: from `config` and `accessLog`. */
  telemetry?: Telemetry;
  /** The sentence model of the `local` and `tiered` embedders; default: the process's shared one (tests pass a fake). */
  localModel?: LocalModel;
  /**
   * The data directory's lock, if you took it (`lockDataDir`): you release it after `stop`.
   * Default: the runtime takes it (DataDirInUse, a ConfigError, while another runtime holds the
   * directory) and `stop` releases it.
   */
  dataDirLock?: DataDirLock;
}

export interface MemoryRuntime {
  /** The HTTP API as an Elysia app: `app.handle(request)` works without listening. */
  app: App;
  /** In-process delivery of a messaging platform's events (SOURCES.md, the messaging bridge). */
  bridge: MessagingBridge;
  /**
   * Serves the HTTP API on `port` (default: the configured PORT; 0 picks a free one). Throws
   * PortInUse (a ConfigError) if something listens there already: a port is never shared.
   */
  listen(port?: number): { port: number; url: string };
  /** Re-reads the secrets file and the CRM mapping; connectors follow the secrets. */
  reload(): Promise<ReloadReport>;
  /**
   * Stops gracefully (docs/operations.md, "Graceful shutdown"): readiness fails and new requests
   * are refused (503) at once; the requests in flight finish (within MEMORY_RUNTIME_SHUTDOWN_TIMEOUT_SECONDS,
   * else their connections are closed); then the listener closes, every actor's mailbox drains,
   * the indexes are saved and every vault closes.
   */
  stop(): Promise<DrainReport>;
  /** The composed internals (services, actor system), for operations and tests. */
  internals: Runtime;
}

/** The runtime's configuration: `config`, else derived from `env` (default: the process environment). */
export function configOf(options: Pick<RuntimeOptions, "env" | "config">): Config {
  return options.config ?? loadConfig(options.env ?? process.env, pkg.version);
}

const NOTHING: DrainReport = { inFlight: 0, cut: 0 };

/**
 * Builds a runtime, the one owner of its data directory until `stop` (DataDirInUse, a ConfigError,
 * while another holds it); its connectors start for every tenant whose secrets exist.
 */
export function createRuntime(options: RuntimeOptions = {}): MemoryRuntime {
  const env = options.env ?? process.env;
  const config = configOf(options);
  const compose = () =>
    composeRuntime({
      config,
      env,
      clock: options.clock,
      log: options.log,
      ports: options.ports,
      localModel: options.localModel,
      telemetry:
        options.telemetry ?? createTelemetry(config.telemetry, { sink: options.accessLog, log: options.log }),
    });
  // One live owner per data directory: held before any vault opens, released once `stop` has closed them.
  const internals = options.dataDirLock ? compose() : holdingDataDir(config.dataDir, compose);
  const app = createApp(internals);
  internals.startConnectors();
  let listening = false;
  return {
    app,
    bridge: internals.bridge,
    internals,
    reload: () => internals.reload(),
    listen(port = config.port) {
      bindOrRefuse(config.host, port, () =>
        app.listen({ port, hostname: config.host, ...serverOptions(config) }),
      );
      listening = true;
      const bound = app.server?.port ?? port;
      return { port: bound, url: `http://${config.host}:${bound}` };
    },
    async stop() {
      const { services, stores } = internals;
      services.shutdown.begin();
      // Open streams first: they never end on their own, and the drain waits for every open response.
      closeMemoryStreams(services);
      const server = listening ? app.server : null;
      const drained = server ? await drainRequests(server, config.shutdownTimeoutMs, stores.clock) : NOTHING;
      if (listening) await app.stop(drained.cut > 0);
      listening = false;
      await internals.stop();
      // The spans still batched are exported before the process ends.
      await internals.stores.telemetry.shutdown();
      return drained;
    },
  };
}
