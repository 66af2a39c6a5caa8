/**
 * The tenant actor's part in outbound events: the tenant's subscriptions and their delivery logs,
 * in named databases of its own vault (`outbound-*`: they hold signing secrets, so exports leave
 * them out), and the data of each event as the entry is now. The delivery worker
 * (delivery-worker.ts) reads and records through these messages; it never opens the vault itself.
 *
 * Writes run in lmdb-js's ordered asynchronous transactions: each one reads what the previous ones
 * wrote, and a reply waits for its commit. Checks are made inside the transaction and answered
 * after it, because a throw inside one does not roll its writes back.
 */
import { Conflict, NotFound } from "../../../src/errors.ts";
import { DELIVERY_LOG_LIMIT, publicView, type StoredSubscription } from "../../../src/models/subscription.ts";
import { markOutbound, unmarkOutbound } from "../../../src/outbound/marker.ts";
import type { OutboundTenantProtocol } from "../../../src/protocols/outbound-protocol.ts";
import { later } from "../../../src/runtime/later.ts";
import type { Handlers } from "../../../src/runtime/protocol.ts";
import type { TablesOf } from "../../../src/vault/tables.ts";
import type { TenantVault } from "../../../src/vault/tenant-vault.ts";
import { type EventReads, eventData } from "./event-data.ts";

export interface TenantOutboundDeps extends EventReads {
  vault: TenantVault;
}

const MAX_LOG_KEY = Number.MAX_SAFE_INTEGER;

/**
 * An import brings a tenant's history, not news: subscriptions made before it move past the
 * imported change log, so their receivers are not sent the whole past as events. Called by the
 * import before the tenant serves again; resolves once committed.
 */
export function skipImportedHistory(vault: TenantVault, lastSeq: number): Promise<unknown> {
  const { subscriptions } = vault.tablesOf("outbound");
  return vault.transaction(() => {
    for (const { key, value } of subscriptions.getRange())
      if (value.position < lastSeq) subscriptions.put(key, { ...value, position: lastSeq });
  });
}

export function outboundHandlers(deps: TenantOutboundDeps): Handlers<OutboundTenantProtocol> {
  const { vault } = deps;
  /** Opened on first use, so tenants without subscriptions get no databases. */
  const dbs = (): TablesOf<"outbound"> => vault.tablesOf("outbound");
  /** Writes that need the marker and have not committed yet: the marker stays while any is pending. */
  let marking = 0;
  const mark = () => {
    markOutbound(vault.dir);
    marking++;
  };
  const marked = () => {
    marking--;
  };
  const activeCount = (): number => {
    let n = 0;
    for (const { value } of dbs().subscriptions.getRange()) if (value.status === "active") n++;
    return n;
  };
  const unmarkIfIdle = (active: number) => {
    if (active === 0 && marking === 0 && activeCount() === 0) unmarkOutbound(vault.dir);
  };
  const transaction = <T>(action: () => T): Promise<T> => vault.transaction(action);

  return {
    "subscription.create": ({ subscription, max }) => {
      const { subscriptions } = dbs();
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
      const written = transaction(() => {
        let count = 0;
        for (const _ of subscriptions.getKeys()) count++;
        if (count >= max) return false;
        subscriptions.put(stored.id, stored);
        return true;
      }).finally(marked);
      return later(
        written.then((ok) => {
          if (!ok) throw new Conflict(`a tenant holds at most ${max} subscriptions; delete one first`);
          return stored;
        }),
      );
    },
    "subscription.list": () => [...dbs().subscriptions.getRange()].map(({ value }) => publicView(value)),
    "subscription.delete": ({ id }) => {
      const { subscriptions, deliveries } = dbs();
      const removed = transaction(() => {
        if (!subscriptions.doesExist(id)) return undefined;
        subscriptions.remove(id);
        for (const key of deliveries.getKeys({ start: [id, 0], end: [id, MAX_LOG_KEY] }))
          deliveries.remove(key);
        return activeCount();
      });
      return later(
        removed.then((active) => {
          if (active === undefined) throw new NotFound("no such subscription in this tenant");
          unmarkIfIdle(active);
          return { deleted: id, active };
        }),
      );
    },
    "subscription.enable": ({ id }) => {
      const { subscriptions } = dbs();
      if (!subscriptions.doesExist(id)) throw new NotFound("no such subscription in this tenant");
      mark();
      const enabled = transaction(() => {
        const s = subscriptions.get(id);
        if (!s) return undefined;
        const next: StoredSubscription =
          s.status === "active" ? s : { ...s, status: "active", consecutive_failures: 0, disabled_at: null };
        subscriptions.put(id, next);
        return next;
      }).finally(marked);
      return later(
        enabled.then((s) => {
          if (!s) throw new NotFound("no such subscription in this tenant");
          return publicView(s);
        }),
      );
    },
    "subscription.deliveries": ({ id, limit }) => {
      const { subscriptions, deliveries } = dbs();
      if (!subscriptions.doesExist(id)) throw new NotFound("no such subscription in this tenant");
      return [
        ...deliveries
          .getRange({ start: [id, MAX_LOG_KEY], end: [id, 0], reverse: true, limit })
          .map(({ value }) => value),
      ];
    },
    "outbound.active": () =>
      [...dbs().subscriptions.getRange()].map(({ value }) => value).filter((s) => s.status === "active"),
    "outbound.payload": ({ change }) => eventData(change, deps),
    "outbound.record": ({ id, patch, deliveries: records }) => {
      const { subscriptions, deliveries } = dbs();
      const recorded = transaction(() => {
        const s = subscriptions.get(id);
        if (!s) return { found: false, active: activeCount() };
        const next: StoredSubscription = {
          ...s,
          ...patch,
          position: Math.max(s.position, patch.position ?? 0),
        };
        let n = s.log_seq;
        for (const record of records) {
          n++;
          deliveries.put([id, n], record);
          // Bounded: the record that falls out of the newest DELIVERY_LOG_LIMIT goes.
          if (n > DELIVERY_LOG_LIMIT) deliveries.remove([id, n - DELIVERY_LOG_LIMIT]);
        }
        next.log_seq = n;
        subscriptions.put(id, next);
        return { found: true, active: activeCount() };
      });
      return later(
        recorded.then((reply) => {
          unmarkIfIdle(reply.active);
          return reply;
        }),
      );
    },
  };
}
