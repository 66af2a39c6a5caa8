import type { ConnectorSupervisor } from "../connectors/supervisor.ts";
import type { ShutdownGate } from "../http/shutdown-gate.ts";
import type { OutboundEvents } from "../outbound/outbound.ts";
import type { Placement } from "../ports/runtime-ports.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorKind, ActorSystem } from "../runtime/actor-system.ts";
import type { SystemStore } from "../vault/system-store.ts";
import type { ConnectorStarts, Runtime } from "./runtime.ts";

export interface LifecycleParts {
  store: SystemStore;
  actors: ActorSystem;
  tenants: ActorKind<TenantProtocol>;
  connectors: ConnectorSupervisor;
  /** The connector actors (actors/connectors/drivers.ts): the bridge's mailboxes, and all of them at stop. */
  connectorActors: { bridge: { passivate(tenantId: string): Promise<void> }; stopAll(): Promise<void> };
  outbound: OutboundEvents;
  placement: Placement;
  /** Aborted first at stop: connectors and outbound workers end their network calls and timers. */
  stopping: AbortController;
  /** The background embedder: stopped before the tenant actors, so no vector arrives after them. */
  embedding: { stop(): void };
  /** The model extractor (src/conversations/model/), stopped with the background embedder. */
  extraction?: { stop(): void };
  /** Stopped once the tenants are: their rounds still building are dropped with them. */
  graphBuilder?: { stop(): void };
  /** The webhook operations' retention and unfinished resumes: started with the connectors, stopped first. */
  webhookUpkeep: { start(): void; stop(): void };
  /** Closed first at stop (if the server's drain has not already): readiness fails, requests are refused. */
  gate: ShutdownGate;
}

type Lifecycle = Pick<
  Runtime,
  "startConnectors" | "startConnectorsFor" | "passivateTenant" | "placementChanged" | "stop"
>;

/** How the composed runtime starts what runs on its own, follows placement, and stops. */
export function lifecycleOf(parts: LifecycleParts): Lifecycle {
  const { store, connectors, outbound, stopping } = parts;
  const signal = stopping.signal;
  return {
    startConnectors: () => {
      parts.webhookUpkeep.start();
      for (const tenant of store.listTenants()) void connectors.reconcile(tenant.tenant_id);
      outbound.startAll(store.listTenants().map((t) => t.tenant_id));
    },
    startConnectorsFor: async (tenantId) => {
      if (signal.aborted) return {};
      await connectors.reconcile(tenantId);
      return (await connectors.statuses(tenantId)) as ConnectorStarts;
    },
    passivateTenant: (tenantId) => parts.tenants.passivate(tenantId),
    placementChanged: async (tenantIds) => {
      if (signal.aborted) return;
      await Promise.all(
        tenantIds.map(async (tenantId) => {
          await Promise.all([connectors.reconcile(tenantId), outbound.reconcile(tenantId)]);
          // Its queued events were refused once the partition left; new ones are refused up front.
          if (!parts.placement.servedHere(tenantId)) await parts.connectorActors.bridge.passivate(tenantId);
        }),
      );
    },
    stop: async () => {
      parts.gate.begin();
      parts.webhookUpkeep.stop();
      // Connectors first: close streams, cancel timers, then let their mailboxes drain.
      connectors.halt();
      stopping.abort();
      await Promise.all([parts.connectorActors.stopAll(), outbound.stopAll()]);
      parts.embedding.stop();
      parts.extraction?.stop();
      await parts.actors.stopAll();
      parts.graphBuilder?.stop();
      await store.close();
    },
  };
}
