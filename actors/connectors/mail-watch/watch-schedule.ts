/**
 * When the mailbox watch is renewed: daily, and always before it expires (a watch lasts at most
 * 7 days; an expired one silently stops the push notifications).
 */
export const DAY_MS = 24 * 3600 * 1000;
/** Renew at least this long before the expiration, so a slow or failing call still has time. */
export const RENEW_MARGIN_MS = 3600 * 1000;

export interface StoredWatch {
  historyId: string;
  /** Epoch ms. */
  expiration: number;
  /** Epoch ms of the watch call that gave this expiration. */
  renewedAt: number;
}

/** Epoch ms of the next renewal: a day after the last one, or an hour before expiry if sooner. */
export function nextRenewalAt(watch: StoredWatch): number {
  return Math.min(watch.renewedAt + DAY_MS, watch.expiration - RENEW_MARGIN_MS);
}

/** A stored watch still worth keeping (it expires after the renewal margin). */
export function watchIsLive(watch: StoredWatch | undefined, now: number): watch is StoredWatch {
  return watch !== undefined && watch.expiration - RENEW_MARGIN_MS > now;
}

export function storedWatchOf(value: unknown): StoredWatch | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.historyId !== "string" || typeof v.expiration !== "number" || typeof v.renewedAt !== "number")
    return undefined;
  return { historyId: v.historyId, expiration: v.expiration, renewedAt: v.renewedAt };
}
