import { expect, test } from "bun:test";
import {
  deliveryOf,
  newCustomer,
  order,
  refund,
  SHOP,
  STOREFRONT_SECRET,
  shopifyDelivery,
  shopifyHeaders,
  shopifyHmac,
  storefrontSender,
} from "../fakes/senders/storefront.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource, type Summary } from "./conformance.ts";

/** The lifecycle sample's order. */
const ORDER = 5_601_299_999_001;

describeSource({
  sender: storefrontSender,
  mapped: [
    {
      name: "order created",
      body: () => shopifyDelivery("orders/create", order()),
      eventType: "orders/create",
      category: "fact",
      content:
        /^Order #1001 \(\d+\) was placed on acme-widgets\.myshopify\.com by Bob Norman <bob\.norman@example\.com> for 199\.65 USD \(payment pending\): 1 × IPod Nano - 8GB \(SKU IPOD2008PINK\), 3 × Sticker\.$/,
      fields: {
        tags: ["storefront", "order", "created", "pending"],
        data: { shop: SHOP, financial_status: "pending", total_price: "199.65", currency: "USD" },
        valid_from: "2026-11-21T09:58:00.000Z",
      },
    },
    {
      name: "order paid (no decision to resolve)",
      body: () => shopifyDelivery("orders/paid", order({ financial_status: "paid" })),
      eventType: "orders/paid",
      category: "fact",
      content: /^Order #1001 \(\d+\) was paid on acme-widgets\.myshopify\.com for 199\.65 USD by Bob Norman/,
      fields: {
        tags: ["outcome", "storefront", "order", "paid"],
        data: { result: "success", amount: 199.65, currency: "USD", financial_status: "paid" },
      },
    },
    {
      name: "refund created",
      body: () => shopifyDelivery("refunds/create", refund(5601234567890)),
      eventType: "refunds/create",
      category: "exception",
      content:
        "A refund of 41.94 USD was issued on order 5601234567890 on acme-widgets.myshopify.com: Item arrived damaged.",
      fields: {
        severity: "medium",
        status: "open",
        data: { order_id: "5601234567890", amount: 41.94, currency: "USD", line_items: ["1 × Sticker"] },
      },
    },
    {
      name: "customer created",
      body: () => shopifyDelivery("customers/create", newCustomer()),
      eventType: "customers/create",
      category: "relationship",
      content:
        "Ada Lovelace <ada.lovelace@example.com> became a customer of acme-widgets.myshopify.com (subscribed to email marketing).",
      fields: {
        subject: "Ada Lovelace <ada.lovelace@example.com>",
        predicate: "is a customer of",
        object: SHOP,
        data: { email_marketing: "subscribed", country: "GB" },
      },
    },
  ],
  lifecycles: [
    {
      name: "order paid (the placed order's next state)",
      before: [
        {
          body: () => shopifyDelivery("orders/create", order({ id: ORDER })),
          category: "fact",
          closed: "ended",
        },
      ],
      closing: {
        body: () =>
          shopifyDelivery(
            "orders/paid",
            order({ id: ORDER, financial_status: "paid", processed_at: "2026-11-21T05:10:00-05:00" }),
          ),
        category: "fact",
      },
    },
  ],
  unmapped: () =>
    shopifyDelivery("products/update", { id: 632910392, title: "IPod Nano - 8GB", status: "active" }),
  more: ({ tenant, deliver, post, harness, clock }) => {
    const entries = async (tenantId: string): Promise<number> =>
      (await harness().json("GET", `/tenants/${tenantId}/healthz`, { token: harness().adminToken })).body
        .vault.entries;
    const summaryOf = async (res: Response): Promise<Summary> => {
      expect(res.status).toBe(200);
      return (await res.json()) as Summary;
    };

    test("the event id is the topic and X-Shopify-Event-Id: a retry under a new webhook id is a duplicate", async () => {
      const t = await tenant();
      const body = shopifyDelivery("orders/create", order());
      const first = await deliver(t.tenant_id, body);
      const entry = await readEntry(harness(), t.token, "fact", first.entries[0]!);
      expect(entry.source.event_id).toBe(`orders/create:${deliveryOf(body).eventId}`);
      const headers = {
        ...shopifyHeaders(body, clock.now()),
        "x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
        "x-shopify-hmac-sha256": shopifyHmac(STOREFRONT_SECRET, body),
      };
      expect(await summaryOf(await post(t.tenant_id, { headers, body }))).toMatchObject({
        accepted: 0,
        duplicates: 1,
      });
    });

    test("two topics sharing one event id are two events", async () => {
      const t = await tenant();
      const resource = order({ financial_status: "paid" });
      const body = shopifyDelivery("orders/create", resource);
      const { eventId } = deliveryOf(body);
      const paidHeaders = {
        ...shopifyHeaders(body, clock.now()),
        "x-shopify-topic": "orders/paid",
        "x-shopify-event-id": eventId,
        "x-shopify-hmac-sha256": shopifyHmac(STOREFRONT_SECRET, body),
      };
      expect((await deliver(t.tenant_id, body)).accepted).toBe(1);
      expect((await summaryOf(await post(t.tenant_id, { headers: paidHeaders, body }))).accepted).toBe(1);
      expect(await entries(t.tenant_id)).toBe(2);
    });

    test("without X-Shopify-Event-Id, X-Shopify-Webhook-Id dedupes", async () => {
      const t = await tenant();
      const body = shopifyDelivery("customers/create", newCustomer());
      const { "x-shopify-event-id": _dropped, ...rest } = shopifyHeaders(body, clock.now());
      const headers = { ...rest, "x-shopify-hmac-sha256": shopifyHmac(STOREFRONT_SECRET, body) };
      const first = await summaryOf(await post(t.tenant_id, { headers, body }));
      const entry = await readEntry(harness(), t.token, "relationship", first.entries[0]!);
      expect(entry.source.event_id).toBe(`customers/create:${deliveryOf(body).webhookId}`);
      expect(await summaryOf(await post(t.tenant_id, { headers, body }))).toMatchObject({ duplicates: 1 });
    });

    test("an order paid without its id is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const { id: _id, ...withoutId } = order({ financial_status: "paid" });
      const body = shopifyDelivery("orders/paid", withoutId);
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({ accepted: 0, entries: [], duplicates: 0, ignored: 0 });
      expect(summary.dead_lettered).toEqual([`orders/paid:${deliveryOf(body).eventId}`]);
      expect(await entries(t.tenant_id)).toBe(0);
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead).toMatchObject({ event_type: "orders/paid" });
      expect(dead!.last_error).toContain("payload.id");
    });

    test("a body that is not a JSON object → 400", async () => {
      const t = await tenant();
      const body = "[1, 2]";
      const res = await post(t.tenant_id, {
        headers: {
          "content-type": "application/json",
          "x-shopify-topic": "orders/create",
          "x-shopify-hmac-sha256": shopifyHmac(STOREFRONT_SECRET, body),
        },
        body,
      });
      expect(res.status).toBe(400);
      expect(await entries(t.tenant_id)).toBe(0);
    });
  },
});
