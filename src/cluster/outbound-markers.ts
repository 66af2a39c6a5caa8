/**
 * The outbound marker (src/outbound/marker.ts) follows a partition's data. It is a file beside a
 * tenant's vault, not a record in it, so neither the changelog nor a snapshot's vault file carries
 * it: a node taking a partition over would hold the tenant's subscriptions and start no delivery
 * worker for them. So a replay sets it from the vault it rebuilt, for every tenant whose
 * subscriptions a replayed write changed (or whose vault an import replaced), and a snapshot's
 * manifest names the tenants that carry it (snapshots.ts), written again when its files are loaded.
 */
import { markOutbound, outboundMarked, unmarkOutbound } from "../outbound/marker.ts";
import { tenantDir } from "../vault/tenant-paths.ts";
import { TenantVault, type WriteSet } from "../vault/tenant-vault.ts";

/** Whether a replayed set changes the tenant's subscriptions (so its marker may change). */
export const changesSubscriptions = (set: WriteSet): boolean => set.outbound !== undefined;

/** Marks the vault's directory when it holds an active subscription, unmarks it otherwise. */
export function syncOutboundMarker(vault: TenantVault): void {
  let active = false;
  for (const { value } of vault.tablesOf("outbound").subscriptions.getRange())
    active ||= value.status === "active";
  if (active) markOutbound(vault.dir);
  else unmarkOutbound(vault.dir);
}

/**
 * Sets the marker of each of `tenantIds` in `dir` from its vault: `open` answers the vault when the
 * replay holds it open, else one is opened for the check and closed.
 */
export async function syncOutboundMarkers(
  dir: string,
  tenantIds: Iterable<string>,
  open: (tenantId: string) => TenantVault | undefined,
): Promise<void> {
  for (const tenantId of tenantIds) {
    const held = open(tenantId);
    const vault = held ?? new TenantVault(tenantDir(dir, tenantId));
    try {
      syncOutboundMarker(vault);
    } finally {
      if (!held) await vault.close();
    }
  }
}

/** The tenants among `tenantIds` whose directory in `dir` carries the marker (a snapshot's list). */
export function markedTenants(dir: string, tenantIds: string[]): string[] {
  return tenantIds.filter((tenantId) => outboundMarked(tenantDir(dir, tenantId)));
}
