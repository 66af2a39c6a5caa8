import { expect, test } from "bun:test";
import Stripe from "stripe";
import { PAYMENTS_SECRET, paymentsSender, stripeEvent } from "../fakes/senders/payments.ts";
import { readEntry } from "../helpers/webhooks.ts";
import { describeSource } from "./conformance.ts";

const paymentIntent = (customer = "cus_Q1w2E3") =>
  stripeEvent("payment_intent.succeeded", {
    id: "pi_3Pabc",
    object: "payment_intent",
    amount: 4999,
    amount_received: 4999,
    currency: "eur",
    customer,
    status: "succeeded",
  });

const subscriptionUpdated = (customer = "cus_Q1w2E3") =>
  stripeEvent("customer.subscription.updated", {
    id: "sub_1Nx",
    object: "subscription",
    customer,
    status: "active",
    plan: { id: "price_pro_monthly", nickname: "Pro monthly" },
  });

const failedInvoice = (created: number) =>
  stripeEvent(
    "invoice.payment_failed",
    { id: "in_7", object: "invoice", amount_due: 500, currency: "eur", customer: "cus_Q1w2E3" },
    created,
  );

const subscription = (status: string, created?: number) =>
  stripeEvent(
    "customer.subscription.updated",
    { id: "sub_1Nx", object: "subscription", customer: "cus_Q1w2E3", status },
    created,
  );

describeSource({
  sender: paymentsSender,
  mapped: [
    {
      name: "payment succeeded (no decision to resolve)",
      body: () => paymentIntent(),
      eventType: "payment_intent.succeeded",
      category: "fact",
      content: "Payment pi_3Pabc succeeded of 49.99 EUR",
      fields: {
        tags: ["outcome", "payments", "payment"],
        data: { result: "success", amount: 49.99, currency: "EUR" },
      },
    },
    {
      name: "payment succeeded without a customer (no object to link: still a fact, not a dead letter)",
      body: () => stripeEvent("payment_intent.succeeded", { id: "pi_anon", amount: 1000, currency: "usd" }),
      eventType: "payment_intent.succeeded",
      category: "fact",
      content: "Payment pi_anon succeeded of 10 USD",
      fields: {
        tags: ["outcome", "payments", "payment"],
        data: { result: "success", amount: 10, currency: "USD" },
      },
    },
    {
      name: "invoice payment failed",
      body: () =>
        stripeEvent("invoice.payment_failed", {
          id: "in_1",
          object: "invoice",
          number: "INV-0042",
          amount_due: 120000,
          currency: "jpy",
          customer: "cus_9",
          attempt_count: 2,
        }),
      eventType: "invoice.payment_failed",
      category: "exception",
      content: "Invoice INV-0042 payment failed of 120000 JPY",
      fields: { severity: "high", status: "open" },
    },
    {
      name: "dispute created",
      body: () =>
        stripeEvent("charge.dispute.created", {
          id: "dp_1",
          object: "dispute",
          charge: "ch_1",
          amount: 1500,
          currency: "usd",
          reason: "fraudulent",
        }),
      eventType: "charge.dispute.created",
      category: "exception",
      content: "A dispute was opened on charge ch_1 of 15 USD: fraudulent",
      fields: { severity: "critical" },
    },
    {
      name: "subscription updated",
      body: () => subscriptionUpdated(),
      eventType: "customer.subscription.updated",
      category: "decision",
      content: "Subscription sub_1Nx of customer cus_Q1w2E3 is now active on plan Pro monthly",
      fields: { stage: "active", status: "open" },
    },
  ],
  lifecycles: [
    {
      name: "payment succeeded for an invoice",
      before: [{ body: () => failedInvoice(1763700000), category: "exception", closed: "resolved" }],
      closing: {
        body: () =>
          stripeEvent("payment_intent.succeeded", {
            id: "pi_9",
            amount: 500,
            currency: "eur",
            invoice: "in_7",
          }),
        category: "fact",
      },
    },
    {
      name: "invoice paid",
      before: [{ body: () => failedInvoice(1763700000), category: "exception", closed: "resolved" }],
      closing: {
        body: () =>
          stripeEvent("invoice.paid", { id: "in_7", object: "invoice", amount_paid: 500, currency: "eur" }),
        category: "fact",
      },
    },
    {
      name: "subscription cancelled (deleted)",
      before: [
        {
          body: () => subscription("active", 1763700000),
          category: "decision",
          closed: "ended and resolved",
        },
      ],
      closing: {
        body: () =>
          stripeEvent("customer.subscription.deleted", {
            id: "sub_1Nx",
            object: "subscription",
            customer: "cus_Q1w2E3",
            status: "canceled",
          }),
        category: "decision",
      },
    },
    {
      name: "subscription updated to canceled",
      before: [
        {
          body: () => subscription("past_due", 1763700000),
          category: "decision",
          closed: "ended and resolved",
        },
      ],
      closing: { body: () => subscription("canceled"), category: "decision" },
    },
    {
      name: "dispute closed",
      before: [
        {
          body: () =>
            stripeEvent(
              "charge.dispute.created",
              { id: "dp_1", charge: "ch_1", reason: "fraudulent" },
              1763700000,
            ),
          category: "exception",
          closed: "resolved",
        },
      ],
      closing: {
        body: () => stripeEvent("charge.dispute.closed", { id: "dp_1", charge: "ch_1", status: "won" }),
        category: "fact",
      },
    },
  ],
  unmapped: () => stripeEvent("customer.created", { id: "cus_1", object: "customer" }),
  more: ({ tenant, deliver, harness, clock }) => {
    test("a payment for a customer whose subscription decision exists is the outcome resolving it", async () => {
      const t = await tenant();
      const decision = await deliver(t.tenant_id, subscriptionUpdated("cus_LINK"));
      const outcome = await deliver(t.tenant_id, paymentIntent("cus_LINK"));
      const entry = await readEntry(harness(), t.token, "outcome", outcome.entries[0]!);
      expect(entry).toMatchObject({
        decision_id: decision.entries[0],
        result: "success",
        amount: 49.99,
        currency: "EUR",
      });
      const resolved = await readEntry(harness(), t.token, "decision", decision.entries[0]!);
      expect(resolved.status).toBe("resolved");
    });

    test("a delivery signed by Stripe's own library is accepted", async () => {
      const t = await tenant();
      const body = paymentIntent();
      // The synchronous helpers of the stripe package fail under Bun; the async ones work.
      const header = await Stripe.webhooks.generateTestHeaderStringAsync({
        payload: body,
        secret: PAYMENTS_SECRET,
        timestamp: Math.floor(clock.now() / 1000),
      });
      const res = await harness().call("POST", `/webhooks/payments/${t.tenant_id}`, {
        raw: body,
        headers: { "content-type": "application/json", "stripe-signature": header },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
      // And what our sender produces, Stripe's verifier accepts.
      const ours = paymentsSender.sign(body, { now: Date.now(), url: "" }) as {
        headers: Record<string, string>;
      };
      const event = await Stripe.webhooks.constructEventAsync(
        body,
        ours.headers["stripe-signature"]!,
        PAYMENTS_SECRET,
      );
      expect(event.type).toBe("payment_intent.succeeded");
    });
  },
});
