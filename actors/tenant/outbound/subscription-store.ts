import type { StoredSubscription } from "../../../src/models/subscription.ts";
import type { OutboundRecords } from "../../../src/vault/outbound-records.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { emptySet } from "../../../src/vault/write-set.ts";

/**
 * A tenant's subscriptions as the outbound slice reads them: committed, with the writes still
 * committing on top (the vault's staging, kind `u`; a deleted one is staged as null), so each
 * message sees what the ones before it wrote. A pending value read is observed: the reply that
 * used it waits for its commit.
 */
export class SubscriptionStore {
  constructor(private readonly vault: TenantVault) {}

  get(id: string): StoredSubscription | undefined {
    const staged = this.vault.staging.key("u", id) as StoredSubscription | null | undefined;
    if (staged !== undefined) return staged ?? undefined;
    return this.vault.tablesOf("outbound").subscriptions.get(id);
  }

  /** Every subscription, by id (ULIDs: in creation order). */
  all(): StoredSubscription[] {
    const byId = new Map<string, StoredSubscription | null>();
    for (const { key, value } of this.vault.tablesOf("outbound").subscriptions.getRange())
      byId.set(key, value);
    let added = false;
    for (const [id, value] of this.vault.staging.keys("u")) {
      added ||= !byId.has(id);
      byId.set(id, value as StoredSubscription | null);
    }
    const ids = added ? [...byId.keys()].sort() : [...byId.keys()];
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Writes an outbound part as a write set of its own; resolves once committed, rejects when refused. */
  write(outbound: OutboundRecords): Promise<void> {
    try {
      return this.vault.write(emptySet({ outbound }));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
