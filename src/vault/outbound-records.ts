import type { Delivery, StoredSubscription } from "../models/subscription.ts";

/** A delivery log key: the subscription's id, then the attempt's number in its log. */
export type DeliveryKey = [string, number];

/** Past every delivery number of a subscription's log. */
export const MAX_LOG_KEY = Number.MAX_SAFE_INTEGER;

/**
 * What a write changes of the tenant's outbound events (actors/tenant/outbound/): subscriptions
 * written whole, subscriptions deleted with their delivery logs, delivery attempts logged and the
 * ones that fall out of a bounded log. Part of the write set, so cluster mode's changelog carries
 * them like every other table and a takeover keeps the tenant's subscriptions.
 */
export interface OutboundRecords {
  subscriptions?: StoredSubscription[];
  /** Subscriptions deleted: each goes with every committed record of its delivery log. */
  deleted?: string[];
  deliveries?: Array<[DeliveryKey, Delivery]>;
  /** Delivery records removed: the bounded log's oldest, and a deleted subscription's still staged. */
  purgedDeliveries?: DeliveryKey[];
}

/** The staging key of a subscription (kind `u`); a deleted one is staged as null. */
export function* stagedOutboundValues(records: OutboundRecords | undefined): Generator<[string, unknown]> {
  if (!records) return;
  for (const s of records.subscriptions ?? []) yield [`u:${s.id}`, s];
  for (const id of records.deleted ?? []) yield [`u:${id}`, null];
}

/** Whether the outbound part only removes records (let through at the vault's size ceiling). */
export function outboundOnlyFrees(records: OutboundRecords | undefined): boolean {
  return !records || (!records.subscriptions?.length && !records.deliveries?.length);
}
