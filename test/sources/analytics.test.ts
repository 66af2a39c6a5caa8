import { expect, test } from "bun:test";
import { analyticsSender, segmentMessage } from "../fakes/senders/analytics.ts";
import { deadLetters, readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const orderCompleted = (properties: Record<string, unknown>) =>
  segmentMessage("track", {
    userId: "97980cfea0067",
    event: "Order Completed",
    properties: {
      checkout_id: "fksdjfsdjfisjf9sdfjsd9f",
      order_id: "50314b8e9bcf000000000000",
      affiliation: "Google Store",
      coupon: "hasbros",
      products: [{ product_id: "507f1f77bcf86cd799439011", sku: "45790-32", price: 19, quantity: 1 }],
      ...properties,
    },
  });

describeSource({
  sender: analyticsSender,
  mapped: [
    {
      name: "identify with a company",
      body: () =>
        segmentMessage("identify", {
          userId: "97980cfea0067",
          traits: {
            name: "Peter Gibbons",
            email: "peter@example.com",
            company: { name: "Initech", id: "co_1", industry: "Technology" },
            plan: "premium",
          },
        }),
      eventType: "identify",
      category: "relationship",
      content: "User 97980cfea0067 identified: Peter Gibbons <peter@example.com>, company Initech.",
      fields: {
        subject: "97980cfea0067",
        predicate: "works at",
        object: "Initech",
        valid_from: "2026-11-21T09:59:00.000Z",
        data: { traits: { email: "peter@example.com", plan: "premium" } },
      },
    },
    {
      name: "group",
      body: () =>
        segmentMessage("group", {
          userId: "97980cfea0067",
          groupId: "0e8c78ea9d97a7b8185e8632",
          traits: { name: "Initech", industry: "Technology", employees: 329, plan: "enterprise" },
        }),
      eventType: "group",
      category: "relationship",
      content:
        "User 97980cfea0067 belongs to group Initech (0e8c78ea9d97a7b8185e8632): Technology, plan enterprise.",
      fields: { subject: "97980cfea0067", predicate: "belongs to", object: "Initech" },
    },
    {
      name: 'track "Order Completed" (no decision to resolve)',
      body: () => orderCompleted({ total: 27.5, revenue: 25, shipping: 3, tax: 2, currency: "eur" }),
      eventType: "track:Order Completed",
      category: "fact",
      content: "User 97980cfea0067 completed order 50314b8e9bcf000000000000 for 25 EUR (total paid 27.5).",
      fields: {
        tags: ["outcome", "analytics", "track", "order_completed"],
        data: { result: "success", amount: 25, currency: "EUR", order_id: "50314b8e9bcf000000000000" },
      },
    },
    {
      name: "any other track call",
      body: () =>
        segmentMessage("track", {
          userId: "97980cfea0067",
          event: "Product Viewed",
          properties: { product_id: "507f1f77bcf86cd799439011", name: "Monopoly: 3rd Edition", price: 18.99 },
        }),
      eventType: "track:Product Viewed",
      category: "fact",
      content:
        'User 97980cfea0067 did "Product Viewed" (product_id=507f1f77bcf86cd799439011, name=Monopoly: 3rd Edition, price=18.99).',
      fields: { tags: ["analytics", "track", "Product Viewed"] },
    },
  ],
  unmapped: () =>
    segmentMessage("page", { userId: "97980cfea0067", name: "Home", properties: { path: "/" } }),
  more: ({ tenant, deliver, harness }) => {
    test("identify without a company: who the user is; an anonymous visitor is named by anonymousId", async () => {
      const t = await tenant();
      const summary = await deliver(
        t.tenant_id,
        segmentMessage("identify", { userId: null, traits: { email: "milton@example.com" } }),
      );
      const entry = await readEntry(harness(), t.token, "relationship", summary.entries[0]!);
      expect(entry).toMatchObject({
        subject: "507f191e810c19729de860ea",
        predicate: "is identified as",
        object: "milton@example.com",
      });
      expect(entry.content).toBe(
        "Anonymous visitor 507f191e810c19729de860ea identified: milton@example.com.",
      );
    });

    test("an order without revenue takes its total; without a currency, US dollars (Segment's spec)", async () => {
      const t = await tenant();
      const summary = await deliver(t.tenant_id, orderCompleted({ total: 40 }));
      const entry = await readEntry(harness(), t.token, "fact", summary.entries[0]!);
      expect(entry.data).toMatchObject({ result: "success", amount: 40, currency: "USD" });
    });

    test("identify with no traits to relate is dead-lettered as missing_field", async () => {
      const t = await tenant();
      const body = segmentMessage("identify", { userId: "u_bare" });
      const summary = await deliver(t.tenant_id, body);
      expect(summary).toMatchObject({
        accepted: 0,
        entries: [],
        dead_lettered: [JSON.parse(body).messageId],
      });
      const [dead] = await deadLetters(harness(), t.tenant_id);
      expect(dead!.last_error).toBe(
        "missing_field: traits.company.name or traits.company or traits.name or traits.firstName or traits.first_name or traits.lastName or traits.email",
      );
    });

    test("screen and alias calls are ignored too", async () => {
      const t = await tenant();
      for (const body of [
        segmentMessage("screen", { userId: "u1", name: "Settings" }),
        segmentMessage("alias", { userId: "u1", previousId: "anon-1" }),
      ])
        expect(await deliver(t.tenant_id, body)).toMatchObject({ accepted: 0, ignored: 1 });
    });
  },
});
