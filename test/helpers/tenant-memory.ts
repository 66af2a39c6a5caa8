/** A tenant's memory on a vault of its own in a temporary directory, closed and removed after each test. */
import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TenantMemory } from "../../actors/tenant/memory/memory.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { TenantVault } from "../../src/vault/tenant-vault.ts";

export const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const START = Date.parse("2026-03-01T00:00:00.000Z");

/**
 * Registers the cleanup of the calling test file (call it at its top level) and answers the
 * opener: each call a new vault under `prefix`, its memory (4 dimensions) and a clock at START.
 */
export function memoryVaults(prefix: string) {
  const open: Array<{ memory: TenantMemory; vault: TenantVault; dir: string }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) {
      o.memory.close();
      await o.vault.close();
      rmSync(o.dir, { recursive: true, force: true });
    }
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const vault = new TenantVault(dir);
    const clock = new ManualClock(START);
    const memory = new TenantMemory({ tenantId: TENANT, vault, clock, dims: 4 });
    open.push({ memory, vault, dir });
    return { memory, vault, clock };
  };
}
