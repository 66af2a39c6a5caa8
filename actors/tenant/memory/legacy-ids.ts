import type { StoredEntry } from "../../../src/memory/temporal.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import type { Sha8 } from "./entry-id.ts";
import { identityText } from "./entry-identity.ts";
import type { EntryStore } from "./entry-store.ts";

/** Meta key set once a vault is known to hold an entry stored under the earlier id rule. */
const LEGACY_KEY = "ids:legacy";
/** Meta key: the change-log position through which every created entry follows the current rule. */
const CHECKED_KEY = "ids:checked";
/** Entries this slice writes between two records of the checked position (bounds a crash's recheck). */
const CHECK_EVERY = 4096;
/** Chain slots tried when telling a current-rule id (entry-id.ts `entryId`) from a legacy one. */
const CHAIN_SLOTS = 16;

/**
 * Whether a vault may hold entries stored under the earlier id rule (entry-identity.ts), so that a
 * write must also look for its content under that rule: a second chain of hashes and lookups on
 * every write, paid only by the vaults that need it. Decided when the memory slice opens, from the
 * entries created since the last check (the change log's `entry.created` records after a recorded
 * position: an import, a replay or an older runtime may have written them); the flag, once set,
 * stays. On close the position moves to the log's end: what this slice wrote follows the rule.
 */
export class LegacyIds {
  readonly present: boolean;
  private readonly vault: TenantVault;
  private unrecorded = 0;

  constructor(vault: TenantVault, entries: EntryStore, hash: Sha8) {
    this.vault = vault;
    const meta = vault.tablesOf("vault").meta;
    if (meta.get(LEGACY_KEY) !== undefined) {
      this.present = true;
      return;
    }
    const from = meta.get(CHECKED_KEY) ?? 0;
    const legacy = createdSince(vault, from).some((id) => {
      const stored = entries.get(id);
      return stored !== undefined && !followsCurrentRule(stored, hash);
    });
    this.present = legacy;
    const recorded = legacy
      ? vault.recordHint(LEGACY_KEY, 1)
      : vault.recordHint(CHECKED_KEY, vault.changes.last());
    void recorded.catch(() => undefined);
  }

  /**
   * This slice wrote `created` entries (current rule): every CHECK_EVERY of them the checked
   * position moves to the log's newest position, in the same synchronous run as the write (so in
   * its transaction or a later one), so that a restart after a crash rechecks a bounded tail.
   */
  wrote(created: number): void {
    if (this.present) return;
    this.unrecorded += created;
    if (this.unrecorded < CHECK_EVERY) return;
    this.unrecorded = 0;
    const meta = this.vault.tablesOf("vault").meta;
    if (meta.get(CHECKED_KEY) === undefined) return;
    void this.vault.recordHint(CHECKED_KEY, this.vault.changes.current()).catch(() => undefined);
  }

  /** Records that everything written so far follows the current rule (this slice wrote it). */
  close(): void {
    const meta = this.vault.tablesOf("vault").meta;
    // A check forgotten since (an import began) stays forgotten: the import's entries are not ours.
    if (this.present || meta.get(CHECKED_KEY) === undefined) return;
    void this.vault.recordHint(CHECKED_KEY, this.vault.changes.last()).catch(() => undefined);
  }
}

/** Forgets the check (an import brings entries of another runtime): the next open checks them all. */
export function forgetLegacyCheck(vault: TenantVault): Promise<boolean> {
  return vault.recordHint(CHECKED_KEY, null);
}

/** Ids of the entries created after change-log position `after`. */
function createdSince(vault: TenantVault, after: number): string[] {
  const ids: string[] = [];
  for (const { value } of vault.tablesOf("log").changes.getRange({ start: after + 1 }))
    if (value.type === "entry.created") ids.push(value.id);
  return ids;
}

/** Whether the entry's id is one of the first slots of its current-rule id chain. */
export function followsCurrentRule(stored: StoredEntry, hash: Sha8): boolean {
  const identity = identityText(stored.entry, stored.prior_valid_to, stored.prior_status);
  if (hash(identity) === stored.entry.id) return true;
  for (let counter = 1; counter < CHAIN_SLOTS; counter++)
    if (hash(`${identity}#${counter}`) === stored.entry.id) return true;
  return false;
}
