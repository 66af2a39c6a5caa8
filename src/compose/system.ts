/**
 * The fourth stage (compose.ts): the system actor (tenants, roles, audit; actors/system.ts) and
 * what it drives. A tenant's creation opens its vault; its deletion erases it, stopping first
 * every actor that holds it open (connectors, the bridge, the outbound worker). Also the reload
 * (SIGHUP, `POST /admin/reload`) and the tenants' lifecycle (suspend, resume, delete).
 */
import { systemBehaviour } from "../../actors/system.ts";
import type { RuntimePorts } from "../ports/runtime-ports.ts";
import type { SystemProtocol } from "../protocols/system-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import { Erasures } from "../tenants/erase-tenant.ts";
import { TenantLifecycle } from "../tenants/lifecycle.ts";
import { type Actors, SYSTEM_KIND } from "./actors.ts";
import type { Connectors } from "./connectors.ts";
import { reloader } from "./reload.ts";
import type { Stores } from "./stores.ts";

export interface System {
  system: ActorRef<SystemProtocol>;
  erasures: Erasures;
  lifecycle: TenantLifecycle;
  reload: ReturnType<typeof reloader>;
}

export type SystemPorts = Pick<RuntimePorts, "placement" | "erasure">;

export function startSystem(
  stores: Stores,
  actors: Actors,
  { connectors, connected }: Connectors,
  { placement, erasure }: SystemPorts,
): System {
  const { config, clock, store } = stores;
  const { tenants, outbound } = actors;
  const erasures = new Erasures({
    dataDir: config.dataDir,
    erasing: stores.erasing,
    tenants,
    connectors,
    stopTenantActors: async (tenantId) => {
      await Promise.all([connected.passivate(tenantId), outbound.stop(tenantId)]);
    },
    followUps: erasure,
  });
  const behaviour = () =>
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
  const system = actors.actors.kind<SystemProtocol>(SYSTEM_KIND, behaviour, forever).ref(SYSTEM_KIND);
  const audit = outbound.following(actors.audit);
  return {
    system,
    erasures,
    lifecycle: new TenantLifecycle({ system, connectors, audit, erasure }),
    reload: reloader({ secrets: stores.secrets, connectors, crmMapping: stores.crmMapping }),
  };
}
