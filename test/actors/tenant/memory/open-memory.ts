import { TenantMemory } from "../../../../actors/tenant/memory/memory.ts";
import { ManualClock } from "../../../../src/runtime/clock.ts";
import { TenantVault } from "../../../../src/vault/tenant-vault.ts";

/** A tenant's memory over a vault in `dir`, 4-dimensional vectors, on a clock at 2026-01-01. */
export function openTenantMemory(tenantId: string, dir: string) {
  const vault = new TenantVault(dir);
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00.000Z"));
  const memory = new TenantMemory({ tenantId, vault, clock, dims: 4 });
  return { memory, vault, clock };
}
