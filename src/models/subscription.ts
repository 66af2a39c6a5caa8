import { type Static, Type } from "@sinclair/typebox";
import { IsoTime, LiteralUnion, QueryInteger, QueryObject, StrictObject } from "./common.ts";
import { named } from "./schema-name.ts";

/**
 * Outbound events (webhooks the runtime sends): a tenant's subscriptions, and the log of their
 * delivery attempts. The secret is shown once, in the creation answer, and never again.
 */
export const SUBSCRIBABLE_EVENTS = [
  "entry.created",
  "entry.superseded",
  "entry.corrected",
  "entry.retracted",
  "decision.resolved",
  "deadletter.created",
] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

export const SUBSCRIPTION_STATUSES = ["active", "disabled"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** `sub_` and a ULID. */
export const SUBSCRIPTION_ID_RE = /^sub_[0-9A-HJKMNP-TV-Z]{26}$/;
/** Subscriptions one tenant may hold. */
export const MAX_SUBSCRIPTIONS = 20;
/** Attempts kept in each subscription's delivery log (the newest). */
export const DELIVERY_LOG_LIMIT = 200;

export const SubscriptionBody = named(
  "SubscriptionRequest",
  StrictObject({
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "Where events are POSTed: https (plain http only for loopback hosts), no credentials",
    }),
    events: Type.Array(LiteralUnion(SUBSCRIBABLE_EVENTS), {
      minItems: 1,
      maxItems: SUBSCRIBABLE_EVENTS.length,
      uniqueItems: true,
      description: "The change types to deliver",
    }),
    secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "whsec_ and the base64 of 24–64 random bytes; generated when absent",
      }),
    ),
  }),
);
export type SubscriptionBody = Static<typeof SubscriptionBody>;

const Events = Type.Array(LiteralUnion(SUBSCRIBABLE_EVENTS));

/** The creation answer: the only one that carries the signing secret. */
export const SubscriptionCreated = named(
  "SubscriptionCreated",
  StrictObject({
    id: Type.String(),
    url: Type.String(),
    events: Events,
    status: Type.Literal("active"),
    created_at: IsoTime,
    secret: Type.String({ description: "The signing secret, shown only in this answer" }),
  }),
);

/** A subscription as listed: never its secret. */
export const SubscriptionView = named(
  "Subscription",
  StrictObject({
    id: Type.String(),
    url: Type.String(),
    events: Events,
    status: LiteralUnion(SUBSCRIPTION_STATUSES),
    created_at: IsoTime,
    consecutive_failures: Type.Integer({ minimum: 0 }),
    last_delivery_at: Type.Union([IsoTime, Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    disabled_at: Type.Union([IsoTime, Type.Null()]),
    position: Type.Integer({
      minimum: 0,
      description:
        "Change log position delivered up to (every matching change at or before it was delivered)",
    }),
  }),
);
export type SubscriptionView = Static<typeof SubscriptionView>;

export const SubscriptionList = named(
  "SubscriptionList",
  StrictObject({ subscriptions: Type.Array(SubscriptionView) }),
);
export const SubscriptionDeleted = named("SubscriptionDeleted", StrictObject({ deleted: Type.String() }));

export const DELIVERY_OUTCOMES = ["delivered", "failed", "disabled"] as const;

/** One delivery attempt (or the disabling that ended a run of failures). */
export const Delivery = named(
  "SubscriptionDelivery",
  StrictObject({
    at: IsoTime,
    webhook_id: Type.String(),
    change_seq: Type.Integer({ minimum: 1 }),
    type: Type.String(),
    attempt: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The receiver's HTTP status" }),
    outcome: LiteralUnion(DELIVERY_OUTCOMES),
    error: Type.Optional(Type.String()),
    duration_ms: Type.Number({ minimum: 0 }),
  }),
);
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = named(
  "SubscriptionDeliveryList",
  StrictObject({ deliveries: Type.Array(Delivery) }),
);

export const DeliveriesQuery = QueryObject({
  limit: Type.Optional(QueryInteger({ minimum: 1, maximum: DELIVERY_LOG_LIMIT, default: 50 })),
});

/** A subscription as the tenant's vault keeps it (`outbound-subscriptions`): with its secret. */
export interface StoredSubscription {
  id: string;
  url: string;
  events: SubscribableEvent[];
  secret: string;
  status: SubscriptionStatus;
  created_at: string;
  position: number;
  consecutive_failures: number;
  last_delivery_at: string | null;
  last_error: string | null;
  disabled_at: string | null;
  /** Number of the newest record of its delivery log. */
  log_seq: number;
}

/** What the delivery worker changes in a subscription after an attempt. */
export type SubscriptionPatch = Partial<
  Pick<
    StoredSubscription,
    "position" | "consecutive_failures" | "last_delivery_at" | "last_error" | "status" | "disabled_at"
  >
>;

export function publicView(s: StoredSubscription): SubscriptionView {
  return {
    id: s.id,
    url: s.url,
    events: [...s.events],
    status: s.status,
    created_at: s.created_at,
    consecutive_failures: s.consecutive_failures,
    last_delivery_at: s.last_delivery_at,
    last_error: s.last_error,
    disabled_at: s.disabled_at,
    position: s.position,
  };
}
