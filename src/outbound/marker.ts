/**
 * A tenant with active subscriptions has this file in its vault directory, so that the runtime
 * knows at start which tenants need a delivery worker without opening every vault. It is a hint
 * on the safe side: written before the subscription that needs it commits, removed after the last
 * active one is gone; a stale marker only costs one look into that vault.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const OUTBOUND_MARKER = "outbound-active";

export function markOutbound(vaultDir: string): void {
  writeFileSync(join(vaultDir, OUTBOUND_MARKER), "");
}

export function unmarkOutbound(vaultDir: string): void {
  rmSync(join(vaultDir, OUTBOUND_MARKER), { force: true });
}

export function outboundMarked(vaultDir: string): boolean {
  return existsSync(join(vaultDir, OUTBOUND_MARKER));
}
