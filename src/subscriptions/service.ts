/**
 * Outbound event subscriptions, the service side: each change is written by the tenant actor, then
 * the tenant's delivery worker is reconciled with it (started, stopped), then the change is recorded
 * in the admin audit log; the answer waits for all three, so an answered change is audited.
 */
import { ulid } from "ulid";
import { isoOf } from "../models/common.ts";
import {
  type Delivery,
  MAX_SUBSCRIPTIONS,
  type StoredSubscription,
  type SubscriptionBody,
  type SubscriptionView,
} from "../models/subscription.ts";
import { generateSecret } from "../outbound/signing.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { AdminAuditSink } from "../tenants/lifecycle.ts";

export interface SubscriptionServiceDeps {
  clock: Clock;
  /** The tenant's actor: its subscriptions and delivery logs live in its vault. */
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** The tenant's outbound delivery worker, started or stopped to match its active subscriptions. */
  outbound: { reconcile(tenantId: string): Promise<void> };
  /** Records an admin action; resolves once committed. */
  audit: AdminAuditSink;
}

/** A new subscription as answered once: with its secret. */
export type CreatedSubscription = Pick<
  StoredSubscription,
  "id" | "url" | "events" | "created_at" | "secret"
> & {
  status: "active";
};

/** The URL as the audit log keeps it: without its query, which may carry a receiver's token. */
function auditedUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

export class SubscriptionService {
  constructor(private readonly deps: SubscriptionServiceDeps) {}

  /** Stores the subscription (Conflict past MAX_SUBSCRIPTIONS), starts the worker, audits. */
  async create(tenantId: string, input: SubscriptionBody, by: string): Promise<CreatedSubscription> {
    const now = this.deps.clock.now();
    const stored = await this.deps.tenant(tenantId).ask({
      type: "subscription.create",
      subscription: {
        id: `sub_${ulid(now)}`,
        url: input.url,
        events: input.events,
        secret: input.secret ?? generateSecret(),
        created_at: isoOf(now),
      },
      max: MAX_SUBSCRIPTIONS,
    });
    await this.deps.outbound.reconcile(tenantId);
    await this.deps.audit({
      action: "subscription.created",
      sub: by,
      tenant_id: tenantId,
      target: stored.id,
      details: {
        url: auditedUrl(stored.url),
        events: stored.events,
        secret_given: input.secret !== undefined,
      },
    });
    const { id, url, events, created_at, secret } = stored;
    return { id, url, events, status: "active", created_at, secret };
  }

  /** The tenant's subscriptions with their delivery state, never a secret. */
  list(tenantId: string): Promise<SubscriptionView[]> {
    return this.deps.tenant(tenantId).ask({ type: "subscription.list" });
  }

  /** Deletes it and its delivery log (NotFound when unknown), stops the worker if it was the last, audits. */
  async delete(tenantId: string, id: string, by: string): Promise<{ deleted: string }> {
    const { deleted } = await this.deps.tenant(tenantId).ask({ type: "subscription.delete", id });
    await this.deps.outbound.reconcile(tenantId);
    await this.deps.audit({
      action: "subscription.deleted",
      sub: by,
      tenant_id: tenantId,
      target: id,
      details: {},
    });
    return { deleted };
  }

  /** Active again, its failures forgotten (NotFound when unknown); the worker resumes it; audited. */
  async enable(tenantId: string, id: string, by: string): Promise<SubscriptionView> {
    const view = await this.deps.tenant(tenantId).ask({ type: "subscription.enable", id });
    await this.deps.outbound.reconcile(tenantId);
    await this.deps.audit({
      action: "subscription.enabled",
      sub: by,
      tenant_id: tenantId,
      target: id,
      details: { position: view.position },
    });
    return view;
  }

  /** The newest `limit` delivery attempts, newest first (NotFound when unknown). */
  deliveries(tenantId: string, id: string, limit: number): Promise<Delivery[]> {
    return this.deps.tenant(tenantId).ask({ type: "subscription.deliveries", id, limit });
  }
}
