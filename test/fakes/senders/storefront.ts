import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * Shopify's signing: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`, keyed with the
 * app's client secret. The topic, shop and ids travel in `X-Shopify-*` headers.
 */
export const STOREFRONT_SECRET = "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";
const OLD_SECRET = "shpss_the_client_secret_before_rotation";
export const SHOP = "acme-widgets.myshopify.com";

export function shopifyHmac(secret: string, body: string): string {
  return shopifyHmacBytes(secret, body);
}

function shopifyHmacBytes(secret: string, body: string | Uint8Array): string {
  return createHmac("sha256", secret).update(body).digest("base64");
}

interface Delivery {
  topic: string;
  eventId: string;
  webhookId: string;
  shop: string;
}

/** The headers each body built here is sent with; a retry keeps them. */
const deliveries = new Map<string, Delivery>();

/** A body as Shopify posts it for `topic` (the bare resource). */
export function shopifyDelivery(topic: string, resource: Record<string, unknown>, shop = SHOP): string {
  const body = JSON.stringify(resource);
  deliveries.set(body, { topic, eventId: randomUUID(), webhookId: randomUUID(), shop });
  return body;
}

export function deliveryOf(body: string): Delivery {
  const known = deliveries.get(body);
  if (!known) throw new Error("build storefront bodies with shopifyDelivery()");
  return known;
}

/** The headers Shopify sends with a delivery, the signature aside. */
export function shopifyHeaders(body: string, now = Date.now()): Record<string, string> {
  const d = deliveryOf(body);
  return {
    "content-type": "application/json",
    "user-agent": "Shopify-Captain-Hook",
    "x-shopify-topic": d.topic,
    "x-shopify-shop-domain": d.shop,
    "x-shopify-api-version": "2025-10",
    "x-shopify-webhook-id": d.webhookId,
    "x-shopify-event-id": d.eventId,
    "x-shopify-triggered-at": new Date(now).toISOString(),
  };
}

export const storefrontSender: PlatformSender = {
  source: "storefront",
  secrets: { STOREFRONT_CLIENT_SECRET: STOREFRONT_SECRET },
  signsBody: true,
  sign(body, { now }): Signed {
    return {
      headers: {
        ...shopifyHeaders(body, now),
        "x-shopify-hmac-sha256": shopifyHmac(STOREFRONT_SECRET, body),
      },
      body,
    };
  },
  signRaw(body, { now }): Signed {
    const headers = {
      "content-type": "application/json",
      "x-shopify-topic": "orders/create",
      "x-shopify-shop-domain": SHOP,
      "x-shopify-event-id": randomUUID(),
      "x-shopify-triggered-at": new Date(now).toISOString(),
    };
    return {
      headers: { ...headers, "x-shopify-hmac-sha256": shopifyHmacBytes(STOREFRONT_SECRET, body) },
      body,
    };
  },
  // Shopify sends one signature; the header sent twice arrives joined with ", ".
  signRotated(body, { now }): Signed {
    const both = `${shopifyHmac(OLD_SECRET, body)}, ${shopifyHmac(STOREFRONT_SECRET, body)}`;
    return { headers: { ...shopifyHeaders(body, now), "x-shopify-hmac-sha256": both }, body };
  },
};

const customer = {
  id: 7301234001001,
  email: "bob.norman@example.com",
  first_name: "Bob",
  last_name: "Norman",
  state: "disabled",
  currency: "USD",
};

/** An order as the `orders/*` topics send it. */
export function order(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = 5_601_234_000_000 + randomInt(1, 1_000_000);
  return {
    id,
    admin_graphql_api_id: `gid://shopify/Order/${id}`,
    name: "#1001",
    order_number: 1001,
    email: "bob.norman@example.com",
    created_at: "2026-11-21T04:58:00-05:00",
    updated_at: "2026-11-21T04:58:03-05:00",
    processed_at: "2026-11-21T04:58:00-05:00",
    currency: "USD",
    presentment_currency: "USD",
    total_price: "199.65",
    subtotal_price: "189.65",
    total_tax: "10.00",
    financial_status: "pending",
    fulfillment_status: null,
    order_status_url: `https://${SHOP}/73208451234/orders/b1946ac92492d2347c6235b4d2611184/authenticate?key=abc`,
    customer,
    line_items: [
      { id: 14567001, title: "IPod Nano - 8GB", quantity: 1, price: "199.00", sku: "IPOD2008PINK" },
      { id: 14567002, title: "Sticker", quantity: 3, price: "0.22", sku: null },
    ],
    ...overrides,
  };
}

/** A refund as `refunds/create` sends it. */
export function refund(orderId: number, amount = "41.94"): Record<string, unknown> {
  return {
    id: 509562969 + randomInt(1, 1_000_000),
    order_id: orderId,
    created_at: "2026-11-21T05:10:00-05:00",
    processed_at: "2026-11-21T05:10:00-05:00",
    note: "Item arrived damaged",
    restock: true,
    user_id: 548380009,
    admin_graphql_api_id: "gid://shopify/Refund/509562969",
    refund_line_items: [
      { id: 104689539, quantity: 1, line_item_id: 703073504, line_item: { title: "Sticker" } },
    ],
    transactions: [
      {
        id: 179259969,
        order_id: orderId,
        kind: "refund",
        gateway: "bogus",
        status: "success",
        amount,
        currency: "USD",
      },
    ],
    order_adjustments: [],
  };
}

/** A customer as `customers/create` sends it. */
export function newCustomer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const id = 7_301_234_000_000 + randomInt(1, 1_000_000);
  return {
    id,
    email: "ada.lovelace@example.com",
    first_name: "Ada",
    last_name: "Lovelace",
    phone: "+16135550142",
    state: "enabled",
    verified_email: true,
    tags: "vip",
    currency: "USD",
    created_at: "2026-11-21T04:50:00-05:00",
    updated_at: "2026-11-21T04:50:00-05:00",
    email_marketing_consent: { state: "subscribed", opt_in_level: "single_opt_in", consent_updated_at: null },
    default_address: { country_code: "GB", city: "London" },
    admin_graphql_api_id: `gid://shopify/Customer/${id}`,
    ...overrides,
  };
}
