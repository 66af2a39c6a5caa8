import { Elysia } from "elysia";
import { NotFound, ValidationFailed } from "../errors/domain-errors.ts";
import type { HttpKit } from "../http/http-kit.ts";
import { validatedBody } from "../http/validate-body.ts";
import { problems } from "../models/problem.ts";
import {
  DeliveriesQuery,
  DeliveryList,
  SUBSCRIPTION_ID_RE,
  SubscriptionBody,
  SubscriptionCreated,
  SubscriptionDeleted,
  SubscriptionList,
  SubscriptionView,
} from "../models/subscription.ts";
import { TenantParams } from "../models/tenant.ts";
import { secretProblem } from "../outbound/signing.ts";
import { subscriptionUrlProblem } from "../outbound/subscription-url.ts";
import { SubscriptionParams } from "./model.ts";
import type { SubscriptionService } from "./service.ts";

export interface SubscriptionRouteDeps {
  http: HttpKit;
  subscriptions: SubscriptionService;
}

const tags = ["admin"];
/** What the routes on one subscription take. */
const oneSubscription = { auth: "admin", tenant: "any", params: SubscriptionParams } as const;

/** Checked before anything is read: a malformed id is simply not there. */
function subscriptionId(raw: string): string {
  if (!SUBSCRIPTION_ID_RE.test(raw)) throw new NotFound("no such subscription in this tenant");
  return raw;
}

function invalid(path: string, message: string): never {
  throw new ValidationFailed(`${path.slice(1)}: ${message}`, [{ path, message }]);
}

/**
 * Outbound event subscriptions (admin only): each tenant's subscribers, signed per Standard
 * Webhooks, with their delivery logs. The secret is answered once, at creation.
 */
export const subscriptionRoutes = ({ http, subscriptions }: SubscriptionRouteDeps) =>
  new Elysia({ name: "routes.admin.subscriptions", prefix: "/admin/subscriptions" })
    .use(http.authPlugin)
    .use(http.tenantParam)
    .post(
      "/:tenant_id",
      async ({ tenant, body, set, principal }) => {
        const urlProblem = subscriptionUrlProblem(body.url);
        if (urlProblem) invalid("/url", urlProblem);
        const given = body.secret === undefined ? undefined : secretProblem(body.secret);
        if (given) invalid("/secret", given);
        const created = await subscriptions.create(tenant.tenant_id, body, principal.sub);
        set.status = 201;
        return created;
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
      async ({ tenant }) => ({ subscriptions: await subscriptions.list(tenant.tenant_id) }),
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
      ({ tenant, params, principal }) =>
        subscriptions.delete(tenant.tenant_id, subscriptionId(params.subscription_id), principal.sub),
      {
        ...oneSubscription,
        response: { 200: SubscriptionDeleted, ...problems(401, 403, 404, 503, 507) },
        detail: { tags, summary: "Delete a subscription and its delivery log" },
      },
    )
    .post(
      "/:tenant_id/:subscription_id/enable",
      ({ tenant, params, principal }) =>
        subscriptions.enable(tenant.tenant_id, subscriptionId(params.subscription_id), principal.sub),
      {
        ...oneSubscription,
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
        const id = subscriptionId(params.subscription_id);
        return { deliveries: await subscriptions.deliveries(tenant.tenant_id, id, query.limit ?? 50) };
      },
      {
        ...oneSubscription,
        query: DeliveriesQuery,
        response: { 200: DeliveryList, ...problems(401, 403, 404, 422, 503, 507) },
        detail: { tags, summary: "The subscription's delivery attempts, newest first (bounded log)" },
      },
    );
