import type { TenantProtocol } from "../src/models/tenant-protocol.ts";
import type { Clock } from "../src/runtime/clock.ts";
import type { Behaviour } from "../src/runtime/protocol.ts";
import { TenantVault } from "../src/vault/tenant-vault.ts";
import { tenantDir } from "../src/vault/tenant-paths.ts";

export interface TenantDeps {
  dataDir: string;
  clock: Clock;
}

/** The tenant actor: sole owner of one tenant's vault, so the tenant's writes never race. */
export function tenantBehaviour(tenantId: string, deps: TenantDeps): Behaviour<TenantProtocol> {
  const vault = new TenantVault(tenantDir(deps.dataDir, tenantId));
  return {
    handlers: {
      "tenant.init": () => undefined,
      "tenant.health": () => ({
        vault: { present: true, entries: vault.entryCount() },
        index: { vectors: 0 },
        dead_letters: vault.deadLetterCount(),
        connectors: {},
      }),
    },
    stop: () => vault.close(),
  };
}
