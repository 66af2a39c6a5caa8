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
  "exception.resolved",
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

/**
 * The receiver URL a subscription takes, as one pattern (the route checks it again with the URL
 * parser, src/outbound/subscription-url.ts): https, or http to a loopback host; a host of DNS
 * labels (letters, digits, single hyphens; the last one starting with a letter, so never read as an
 * IPv4 number) or a dotted IPv4 address; a port up to 65535; no userinfo; the rest in URI
 * characters. Every URL it allows is an RFC 3986 URI that the WHATWG parser reads without change.
 */
const LABEL = "[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*";
const LAST_LABEL = "[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*";
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
const HOST = `(?:(?:${LABEL}\\.)*${LAST_LABEL}|(?:${OCTET}\\.){3}${OCTET}|\\[::1\\])`;
const LOOPBACK = "(?:127\\.0\\.0\\.1|localhost|\\[::1\\])";
const PORT = "(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?";
const URI_CHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2})";
const SUBSCRIPTION_URL_PATTERN = `^(?:https://${HOST}|http://${LOOPBACK})${PORT}(?:/${URI_CHAR}*)?(?:\\?(?:${URI_CHAR}|\\?)*)?(?:#(?:${URI_CHAR}|\\?)*)?$`;

/** `whsec_` and the padded base64 of 24–64 bytes (32 to 88 characters), as src/outbound/signing.ts checks it. */
const B64 = "[A-Za-z0-9+/]";
const SECRET_PATTERN = `^whsec_(?:(?:${B64}{4}){8,20}(?:${B64}{2}==|${B64}{3}=)?|(?:${B64}{4}){21}(?:${B64}{2}==)?)$`;

export const SubscriptionBody = named(
  "SubscriptionRequest",
  StrictObject({
    url: Type.String({
      format: "uri",
      pattern: SUBSCRIPTION_URL_PATTERN,
      minLength: 1,
      maxLength: 2048,
      description:
        "Where events are POSTed: an https URL (plain http only to 127.0.0.1, localhost or [::1]) whose host is a DNS name or an IPv4 address, with no user or password; path, query and fragment in URI characters (RFC 3986, non-ASCII percent-encoded)",
    }),
    events: Type.Array(LiteralUnion(SUBSCRIBABLE_EVENTS), {
      minItems: 1,
      maxItems: SUBSCRIBABLE_EVENTS.length,
      uniqueItems: true,
      description: "The change types to deliver",
    }),
    secret: Type.Optional(
      Type.String({
        pattern: SECRET_PATTERN,
        minLength: 1,
        maxLength: 200,
        description: "whsec_ and the base64 (padded) of 24–64 random bytes; generated when absent",
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
