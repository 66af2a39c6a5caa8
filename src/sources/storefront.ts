/**
 * `storefront` (modelled on Shopify): `X-Shopify-Hmac-Sha256`, the base64 HMAC-SHA256 of the raw
 * body keyed with the app's client secret; no timestamp. The body is the bare resource (an order, a
 * refund, a customer): the topic, the shop and the ids travel in headers, so each event carries
 * them. `X-Shopify-Event-Id` (else `X-Shopify-Webhook-Id`), kept by Shopify's retries, dedupes; it
 * is prefixed with the topic so that, should two topics share an event id, neither is taken for a
 * duplicate of the other.
 */
import { BadRequest } from "../errors/domain-errors.ts";
import { at, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { amountOf, currencyOf, nameAndEmail, numberOf } from "./kit/draft.ts";
import { moneyOf, moneyPhrase } from "./kit/money.ts";
import { firstHeader, isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const field = (ev: Event, path: string) => textAt(ev, `payload.${path}`);
const shop = (ev: Event) => textAt(ev, "shop_domain");
const inShop = (ev: Event) => (shop(ev) ? ` on ${shop(ev)}` : "");
const money = (amount: unknown, currency: unknown) => moneyOf(amount, currency);
const describeMoney = (amount: unknown, currency: unknown) => moneyPhrase(money(amount, currency), " for");

const personOf = (person: unknown) => {
  const name = [textAt(person, "first_name"), textAt(person, "last_name")].filter(Boolean).join(" ");
  return nameAndEmail(name || undefined, textAt(person, "email"));
};
/** The company an order or customer belongs to, as its addresses name it. */
const companyOf = (ev: Event) =>
  field(ev, "billing_address.company") ??
  field(ev, "customer.default_address.company") ??
  field(ev, "default_address.company");
const buyer = (ev: Event) => {
  const person = personOf(at(ev, "payload.customer")) ?? field(ev, "email");
  const company = companyOf(ev);
  return person && company ? `${person} of ${company}` : (person ?? company);
};
/** `#1001 (450789469)`; the id is required wherever an order is named. */
const orderName = (ev: Event) => {
  const id = field(ev, "id")!;
  const name = field(ev, "name");
  return name ? `${name} (${id})` : id;
};

const MAX_LINES = 20;
/** `2 × Widget (SKU W-1)` for each line item, the first MAX_LINES of them. */
function lines(ev: Event): string[] {
  const items = at(ev, "payload.line_items");
  if (!Array.isArray(items)) return [];
  return items.slice(0, MAX_LINES).map((item) => {
    const sku = textAt(item, "sku");
    return `${textAt(item, "quantity") ?? "1"} × ${textAt(item, "title") ?? textAt(item, "name") ?? "item"}${sku ? ` (SKU ${sku})` : ""}`;
  });
}

/** A refund's amount: its successful refund transactions, summed, in their currency. */
function refunded(ev: Event): { amount?: number; currency?: string } {
  const transactions = at(ev, "payload.transactions");
  if (!Array.isArray(transactions)) return {};
  let sum: number | undefined;
  let currency: string | undefined;
  for (const t of transactions.slice(0, 100)) {
    if (textAt(t, "kind") !== "refund" || (textAt(t, "status") ?? "success") !== "success") continue;
    const n = numberOf(at(t, "amount"));
    if (n === undefined) continue;
    sum = (sum ?? 0) + n;
    currency ??= currencyOf(at(t, "currency"));
  }
  // Decimal strings summed as floats: cut the binary noise, not the cents.
  return { amount: sum === undefined ? undefined : amountOf(Number(sum.toFixed(6))), currency };
}

const orderData = (ev: Event) => ({
  order_id: field(ev, "id"),
  name: field(ev, "name"),
  shop: shop(ev),
  customer_id: field(ev, "customer.id"),
  customer_name: personOf(at(ev, "payload.customer")),
  company: companyOf(ev),
  email: field(ev, "email"),
  financial_status: field(ev, "financial_status"),
  fulfillment_status: field(ev, "fulfillment_status"),
  total_price: field(ev, "total_price"),
  currency: field(ev, "currency"),
  line_items: lines(ev),
  order_status_url: field(ev, "order_status_url"),
  admin_graphql_api_id: field(ev, "admin_graphql_api_id"),
});

export const storefrontSource = defineSource({
  id: "storefront",
  secrets: ["STOREFRONT_CLIENT_SECRET"],
  verify: hmacScheme({
    secret: "STOREFRONT_CLIENT_SECRET",
    hash: "sha256",
    encoding: "base64",
    signatures: signatures.header("x-shopify-hmac-sha256"),
    payload: payloads.body,
  }),
  events: (body, req) => {
    if (!isRecord(body)) throw new BadRequest("a Shopify webhook body is a JSON object");
    const h = req.headers;
    return [
      {
        topic: firstHeader(h, "x-shopify-topic"),
        shop_domain: firstHeader(h, "x-shopify-shop-domain"),
        event_id: firstHeader(h, "x-shopify-event-id"),
        webhook_id: firstHeader(h, "x-shopify-webhook-id"),
        triggered_at: firstHeader(h, "x-shopify-triggered-at"),
        api_version: firstHeader(h, "x-shopify-api-version"),
        payload: body,
      },
    ];
  },
  eventId: (ev) => {
    const id = textAt(ev, "event_id") ?? textAt(ev, "webhook_id");
    return id ? `${textAt(ev, "topic") ?? "unknown"}:${id}` : undefined;
  },
  eventType: (ev) => ev.topic,
  mappings: {
    "orders/create": {
      category: "fact",
      required: ["payload.id"],
      content: (ev) => {
        const items = lines(ev);
        const payment = field(ev, "financial_status");
        return `Order ${orderName(ev)} was placed${inShop(ev)}${buyer(ev) ? ` by ${buyer(ev)}` : ""}${describeMoney(at(ev, "payload.total_price"), at(ev, "payload.currency"))}${payment ? ` (payment ${payment})` : ""}${items.length ? `: ${items.join(", ")}` : ""}.`;
      },
      tags: (ev) => ["order", "created", field(ev, "financial_status")],
      data: orderData,
      // The order's state: placed, then paid.
      object: (ev) => `order:${field(ev, "id")!}`,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "payload.created_at") ?? ev.triggered_at,
    },
    "orders/paid": {
      category: "outcome",
      required: ["payload.id"],
      content: (ev) =>
        `Order ${orderName(ev)} was paid${inShop(ev)}${describeMoney(at(ev, "payload.total_price"), at(ev, "payload.currency"))}${buyer(ev) ? ` by ${buyer(ev)}` : ""}.`,
      fields: (ev) => ({
        result: "success",
        ...money(at(ev, "payload.total_price"), at(ev, "payload.currency")),
      }),
      tags: ["order", "paid"],
      data: orderData,
      object: (ev) => `order:${field(ev, "id")!}`,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "payload.processed_at") ?? at(ev, "payload.updated_at") ?? ev.triggered_at,
    },
    "refunds/create": {
      category: "exception",
      required: ["payload.order_id"],
      content: (ev) => {
        const { amount, currency } = refunded(ev);
        const note = field(ev, "note");
        const sum = amount === undefined ? "" : ` of ${amount}${currency ? ` ${currency}` : ""}`;
        return `A refund${sum} was issued on order ${field(ev, "order_id")!}${inShop(ev)}${note ? `: ${note}` : ""}.`;
      },
      fields: () => ({ severity: "medium", status: "open" }),
      tags: ["refund"],
      data: (ev) => ({
        refund_id: field(ev, "id"),
        order_id: field(ev, "order_id"),
        shop: shop(ev),
        ...refunded(ev),
        note: field(ev, "note"),
        restock: at(ev, "payload.restock"),
        line_items: Array.isArray(at(ev, "payload.refund_line_items"))
          ? (at(ev, "payload.refund_line_items") as unknown[])
              .slice(0, MAX_LINES)
              .map(
                (item) => `${textAt(item, "quantity") ?? "1"} × ${textAt(item, "line_item.title") ?? "item"}`,
              )
          : undefined,
      }),
      // About its order.
      object: (ev) => `order:${field(ev, "order_id")!}`,
      validFrom: (ev) => at(ev, "payload.processed_at") ?? at(ev, "payload.created_at") ?? ev.triggered_at,
    },
    "customers/create": {
      category: "relationship",
      // The shop (X-Shopify-Shop-Domain) is the relationship's object: every delivery names it.
      required: ["payload.id", "shop_domain"],
      content: (ev) =>
        `${personOf(at(ev, "payload")) ?? `Customer ${field(ev, "id")!}`}${companyOf(ev) ? ` of ${companyOf(ev)}` : ""} became a customer of ${shop(ev)!}${field(ev, "email_marketing_consent.state") === "subscribed" ? " (subscribed to email marketing)" : ""}.`,
      fields: (ev) => ({
        subject: personOf(at(ev, "payload")) ?? `customer ${field(ev, "id")!}`,
        predicate: "is a customer of",
        object: shop(ev)!,
      }),
      tags: ["customer", "created"],
      data: (ev) => ({
        customer_id: field(ev, "id"),
        shop: shop(ev),
        email: field(ev, "email"),
        company: companyOf(ev),
        phone: field(ev, "phone"),
        state: field(ev, "state"),
        tags: field(ev, "tags"),
        email_marketing: field(ev, "email_marketing_consent.state"),
        country: field(ev, "default_address.country_code"),
        admin_graphql_api_id: field(ev, "admin_graphql_api_id"),
      }),
      validFrom: (ev) => at(ev, "payload.created_at") ?? ev.triggered_at,
    },
  },
});
