import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import { ulid } from "ulid";
import { NotFound, ValidationFailed } from "../errors.ts";
import { validatedBody } from "../http/validate-body.ts";
import { isoOf } from "../models/common.ts";
import { problems } from "../models/problem.ts";
import {
  DeliveriesQuery,
  DeliveryList,
  MAX_SUBSCRIPTIONS,
  SUBSCRIPTION_ID_RE,
  SubscriptionBody,
  SubscriptionCreated,
  SubscriptionDeleted,
  SubscriptionList,
  SubscriptionView,
} from "../models/subscription.ts";
import { TenantParams } from "../models/tenant.ts";
import { generateSecret, secretProblem } from "../outbound/signing.ts";
import { subscriptionUrlProblem } from "../outbound/subscription-url.ts";
import type { Deps } from "./deps.ts";

const SubscriptionParams = Type.Object({ tenant_id: Type.String(), subscription_id: Type.String() });
const tags = ["admin"];

/** Checked before anything is read: a malformed id is simply not there. */
function subscriptionId(raw: string): string {
  if (!SUBSCRIPTION_ID_RE.test(raw)) throw new NotFound("no such subscription in this tenant");
  return raw;
}

/** The URL as the audit log keeps it: without its query, which may carry a receiver's token. */
function auditedUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

function invalid(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}

/**
 * Outbound event subscriptions (admin only): each tenant's subscribers, signed per Standard
 * Webhooks, with their delivery logs. The secret is answered once, at creation.
 */
export const adminSubscriptionRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.admin.subscriptions", prefix: "/admin/subscriptions" })
    .use(deps.authPlugin)
    .use(deps.tenantParam)
    .post(
      "/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const tenantId = tenant.tenant_id;
        const urlProblem = subscriptionUrlProblem(body.url);
        if (urlProblem) invalid("/url", urlProblem);
        const given = body.secret === undefined ? undefined : secretProblem(body.secret);
        if (given) invalid("/secret", given);
        const now = deps.clock.now();
        const stored = await deps.tenant(tenantId).ask({
          type: "subscription.create",
          subscription: {
            id: `sub_${ulid(now)}`,
            url: body.url,
            events: body.events,
            secret: body.secret ?? generateSecret(),
            created_at: isoOf(now),
          },
          max: MAX_SUBSCRIPTIONS,
        });
        await deps.outbound.reconcile(tenantId);
        await deps.audit({
          action: "subscription.created",
          sub: principal.sub,
          tenant_id: tenantId,
          target: stored.id,
          details: {
            url: auditedUrl(stored.url),
            events: stored.events,
            secret_given: body.secret !== undefined,
          },
        });
        set.status = 201;
        return {
          id: stored.id,
          url: stored.url,
          events: stored.events,
          status: "active" as const,
          created_at: stored.created_at,
          secret: stored.secret,
        };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        ...validatedBody(SubscriptionBody),
        response: { 201: SubscriptionCreated, ...problems(400, 401, 403, 404, 409, 413, 415, 422, 503, 507) },
        detail: { tags, summary: "Subscribe a URL to the tenant's events (the secret is shown only here)" },
      },
    )
    .get(
      "/:tenant_id",
      async ({ tenant }) => {
        const tenantId = tenant.tenant_id;
        return { subscriptions: await deps.tenant(tenantId).ask({ type: "subscription.list" }) };
      },
      {
        auth: "admin",
        tenant: "any",
        params: TenantParams,
        response: { 200: SubscriptionList, ...problems(401, 403, 404, 503, 507) },
        detail: { tags, summary: "List the tenant's subscriptions, with their delivery state (no secrets)" },
      },
    )
    .delete(
      "/:tenant_id/:subscription_id",
      async ({ tenant, params, principal }) => {
        const tenantId = tenant.tenant_id;
        const id = subscriptionId(params.subscription_id);
        const { deleted } = await deps.tenant(tenantId).ask({ type: "subscription.delete", id });
        await deps.outbound.reconcile(tenantId);
        await deps.audit({
          action: "subscription.deleted",
          sub: principal.sub,
          tenant_id: tenantId,
          target: id,
          details: {},
        });
        return { deleted };
      },
      {
        auth: "admin",
        tenant: "any",
        params: SubscriptionParams,
        response: { 200: SubscriptionDeleted, ...problems(401, 403, 404, 503, 507) },
        detail: { tags, summary: "Delete a subscription and its delivery log" },
      },
    )
    .post(
      "/:tenant_id/:subscription_id/enable",
      async ({ tenant, params, principal }) => {
        const tenantId = tenant.tenant_id;
        const id = subscriptionId(params.subscription_id);
        const view = await deps.tenant(tenantId).ask({ type: "subscription.enable", id });
        await deps.outbound.reconcile(tenantId);
        await deps.audit({
          action: "subscription.enabled",
          sub: principal.sub,
          tenant_id: tenantId,
          target: id,
          details: { position: view.position },
        });
        return view;
      },
      {
        auth: "admin",
        tenant: "any",
        params: SubscriptionParams,
        response: { 200: SubscriptionView, ...problems(401, 403, 404, 503, 507) },
        detail: {
          tags,
          summary:
            "Enable a (disabled) subscription: its failures are forgotten, it resumes after its position",
        },
      },
    )
    .get(
      "/:tenant_id/:subscription_id/deliveries",
      async ({ tenant, params, query }) => {
        const tenantId = tenant.tenant_id;
        const id = subscriptionId(params.subscription_id);
        const limit = query.limit ?? 50;
        return {
          deliveries: await deps.tenant(tenantId).ask({ type: "subscription.deliveries", id, limit }),
        };
      },
      {
        auth: "admin",
        tenant: "any",
        params: SubscriptionParams,
        query: DeliveriesQuery,
        response: { 200: DeliveryList, ...problems(401, 403, 404, 422, 503, 507) },
        detail: { tags, summary: "The subscription's delivery attempts, newest first (bounded log)" },
      },
    );
