/**
 * The tenant actor's part in outbound events: the tenant's subscriptions and their delivery logs,
 * in named databases of its own vault (`outbound-*`: they hold signing secrets, so exports leave
 * them out), and the data of each event as the entry is now. The delivery worker
 * (delivery-worker.ts) reads and records through these messages; it never opens the vault itself.
 *
 * Every change is a write set's outbound part (src/vault/outbound-records.ts), so it meets the
 * size ceiling and cluster mode's changelog like every other write; a reply waits for its commit.
 * Reads see the writes still committing (subscription-store.ts), so checks are made up front.
 */
import { Conflict, NotFound } from "../../../src/errors/domain-errors.ts";
import {
  DELIVERY_LOG_LIMIT,
  type Delivery,
  publicView,
  type StoredSubscription,
} from "../../../src/models/subscription.ts";
import { markOutbound, unmarkOutbound } from "../../../src/outbound/marker.ts";
import type { OutboundTenantProtocol } from "../../../src/protocols/outbound-protocol.ts";
import { later } from "../../../src/runtime/later.ts";
import type { Handlers } from "../../../src/runtime/protocol.ts";
import { type DeliveryKey, MAX_LOG_KEY } from "../../../src/vault/outbound-records.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { type EventReads, eventData } from "./event-data.ts";
import { SubscriptionStore } from "./subscription-store.ts";

export interface TenantOutboundDeps extends EventReads {
  vault: TenantVault;
}

/**
 * An import brings a tenant's history, not news: subscriptions made before it move past the
 * imported change log, so their receivers are not sent the whole past as events. Called by the
 * import before the tenant serves again; resolves once committed.
 */
export function skipImportedHistory(vault: TenantVault, lastSeq: number): Promise<unknown> {
  const store = new SubscriptionStore(vault);
  const moved = store
    .all()
    .filter((s) => s.position < lastSeq)
    .map((s) => ({ ...s, position: lastSeq }));
  return moved.length === 0 ? Promise.resolve() : store.write({ subscriptions: moved });
}

/** The keys a subscription's bounded delivery log can hold now (those still committing included). */
function logKeys(s: StoredSubscription): DeliveryKey[] {
  const keys: DeliveryKey[] = [];
  for (let n = Math.max(1, s.log_seq - DELIVERY_LOG_LIMIT + 1); n <= s.log_seq; n++) keys.push([s.id, n]);
  return keys;
}

export function outboundHandlers(deps: TenantOutboundDeps): Handlers<OutboundTenantProtocol> {
  const { vault } = deps;
  const store = new SubscriptionStore(vault);
  /** Writes that need the marker and have not committed yet: the marker stays while any is pending. */
  let marking = 0;
  const mark = () => {
    markOutbound(vault.dir);
    marking++;
  };
  const marked = () => {
    marking--;
  };
  const activeOnes = (): StoredSubscription[] => store.all().filter((s) => s.status === "active");
  const activeCount = (): number => activeOnes().length;
  const unmarkIfIdle = (active: number) => {
    if (active === 0 && marking === 0 && activeCount() === 0) unmarkOutbound(vault.dir);
  };
  /**
   * After a commit: the active count, and the marker dropped once none is active. The vault may have
   * closed while the commit finished (an erasure restarts the actor): reading it then would throw, or
   * worse, so the count taken in the actor's turn (`before`, staged writes included) is answered and
   * the marker stays, which costs the next start only a worker that finds nothing to do.
   */
  const settled = (commit: Promise<unknown>, before: number): Promise<number> =>
    commit.then(() => {
      if (!vault.isOpen) return before;
      const active = activeCount();
      unmarkIfIdle(active);
      return active;
    });
  const found = (id: string): StoredSubscription => {
    const s = store.get(id);
    if (!s) throw new NotFound("no such subscription in this tenant");
    return s;
  };

  return {
    "subscription.create": ({ subscription, max }) => {
      if (store.all().length >= max)
        throw new Conflict(`a tenant holds at most ${max} subscriptions; delete one first`);
      const stored: StoredSubscription = {
        ...subscription,
        status: "active",
        // A new subscription receives what happens from now on, not the tenant's history.
        position: vault.changes.last(),
        consecutive_failures: 0,
        last_delivery_at: null,
        last_error: null,
        disabled_at: null,
        log_seq: 0,
      };
      mark();
      return later(
        store
          .write({ subscriptions: [stored] })
          .finally(marked)
          .then(() => stored),
      );
    },
    "subscription.list": () => store.all().map(publicView),
    "subscription.delete": ({ id }) => {
      const s = found(id);
      const removed = store.write({ deleted: [id], purgedDeliveries: logKeys(s) });
      return later(settled(removed, activeCount()).then((active) => ({ deleted: id, active })));
    },
    "subscription.enable": ({ id }) => {
      const s = found(id);
      const next: StoredSubscription =
        s.status === "active" ? s : { ...s, status: "active", consecutive_failures: 0, disabled_at: null };
      mark();
      return later(
        store
          .write({ subscriptions: [next] })
          .finally(marked)
          .then(() => publicView(next)),
      );
    },
    "subscription.deliveries": ({ id, limit }) => {
      found(id);
      const { deliveries } = vault.tablesOf("outbound");
      return [
        ...deliveries
          .getRange({ start: [id, MAX_LOG_KEY], end: [id, 0], reverse: true, limit })
          .map(({ value }) => value),
      ];
    },
    "outbound.active": activeOnes,
    "outbound.payload": ({ change }) => eventData(change, deps),
    "outbound.record": ({ id, patch, deliveries: records }) => {
      const s = store.get(id);
      if (!s) return { found: false, active: activeCount() };
      const next: StoredSubscription = {
        ...s,
        ...patch,
        position: Math.max(s.position, patch.position ?? 0),
      };
      const deliveries: Array<[DeliveryKey, Delivery]> = [];
      const purgedDeliveries: DeliveryKey[] = [];
      let n = s.log_seq;
      for (const record of records) {
        n++;
        deliveries.push([[id, n], record]);
        // Bounded: the record that falls out of the newest DELIVERY_LOG_LIMIT goes.
        if (n > DELIVERY_LOG_LIMIT) purgedDeliveries.push([id, n - DELIVERY_LOG_LIMIT]);
      }
      next.log_seq = n;
      const recorded = store.write({ subscriptions: [next], deliveries, purgedDeliveries });
      return later(settled(recorded, activeCount()).then((active) => ({ found: true, active })));
    },
  };
}
