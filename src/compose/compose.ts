/**
 * The composition root: it builds the runtime in stages, each a function of the stages before it,
 * so reading top to bottom is the order. Stores (stores.ts), the actors every tenant has
 * (actors.ts), what brings events in (connectors.ts), the system actor and what it drives
 * (system.ts), the routes' services (services.ts), each feature module's service (features.ts);
 * then start and stop (lifecycle.ts). Cluster
 * mode is the same code with other ports passed in (src/ports/runtime-ports.ts).
 * `src/lib.ts` wraps it for embedding and adds the HTTP app; `src/index.ts` serves it.
 */
import type { Config, Env } from "../config/config.ts";
import type { EmbedderConfig } from "../embedding/create-embedder.ts";
import { type RuntimePorts, withDefaults } from "../ports/runtime-ports.ts";
import { type Clock, systemClock } from "../runtime/clock.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { spawnActors } from "./actors.ts";
import { connectEvents } from "./connectors.ts";
import { composeFeatures } from "./features.ts";
import { lifecycleOf } from "./lifecycle.ts";
import type { Runtime } from "./runtime.ts";
import { sampleRuntime } from "./runtime-samples.ts";
import { composeServices } from "./services.ts";
import { openStores } from "./stores.ts";
import { startSystem } from "./system.ts";

export type { ConnectorStarts, Runtime } from "./runtime.ts";

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
  const ports = withDefaults(options.ports);
  const stores = openStores({ config, env, clock, log, telemetry: options.telemetry });
  const actors = spawnActors(stores, ports, options.localModel);
  const connectors = connectEvents(stores, actors);
  const system = startSystem(stores, actors, connectors, ports);
  const services = composeServices(stores, actors, connectors, system, ports);
  const features = composeFeatures(stores, services);
  sampleRuntime(stores.telemetry, {
    actors: actors.actors,
    embedding: actors.embedding,
    deliveries: connectors.ingest.counters,
    operations: connectors.ingest.figures,
  });
  const { webhookUpkeep, bridge } = connectors;
  const lifecycle = lifecycleOf({
    ...{ store: stores.store, actors: actors.actors, tenants: actors.tenants, outbound: actors.outbound },
    ...{ connectors: connectors.connectors, connectorActors: connectors.connected, webhookUpkeep },
    ...{ embedding: actors.embedding, extraction: actors.extraction, stopping: actors.stopping },
    graphBuilder: actors.graphBuilder,
    placement: ports.placement,
    gate: services.shutdown,
  });
  return {
    stores,
    services,
    features,
    actors: actors.actors,
    bridge,
    reload: system.reload,
    webhookUpkeep,
    ...lifecycle,
  };
}
