/**
 * `payments` (modelled on Stripe): `Stripe-Signature: t=..,v1=..`, HMAC-SHA256 hex of `t.body`,
 * any `v1` (secret rotation), a 5-minute window. One event per delivery; its `id` (evt_…) dedupes.
 * A subscription change is a decision about the customer; a payment that succeeds for that
 * customer is the outcome resolving it (else a fact tagged `outcome`).
 */
import { defineSource, type Event, textAt } from "./kit/define-source.ts";
import { moneyOf, moneyPhrase } from "./kit/money.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const object = (ev: Event) => (ev.data as { object?: Record<string, unknown> } | undefined)?.object ?? {};
const customer = (ev: Event) => textAt(object(ev), "customer");
/** Stripe amounts are in the currency's minor unit. */
const money = (amount: unknown, currency: unknown) => moneyOf(amount, currency, true);
const describeAmount = (amount: unknown, currency: unknown) => moneyPhrase(money(amount, currency), " of");

export const paymentsSource = defineSource({
  id: "payments",
  secrets: ["PAYMENTS_WEBHOOK_SECRET"],
  verify: hmacScheme({
    secret: "PAYMENTS_WEBHOOK_SECRET",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.keyValueList("stripe-signature", { signature: "v1", timestamp: "t" }),
    payload: payloads.timestampDotBody,
    timestamp: { unit: "s", toleranceMs: 5 * 60_000 },
  }),
  eventId: (ev) => ev.id,
  eventType: (ev) => ev.type,
  mappings: {
    "payment_intent.succeeded": {
      category: "outcome",
      content: (ev) =>
        `Payment ${textAt(object(ev), "id") ?? ""} succeeded${describeAmount(object(ev).amount_received ?? object(ev).amount, object(ev).currency)}${customer(ev) ? ` for customer ${customer(ev)}` : ""}.`,
      fields: (ev) => ({
        result: "success",
        ...money(object(ev).amount_received ?? object(ev).amount, object(ev).currency),
      }),
      tags: ["payment"],
      data: (ev) => ({
        payment_intent: textAt(object(ev), "id"),
        customer: customer(ev),
        livemode: ev.livemode,
      }),
      object: customer,
      validFrom: (ev) => ev.created,
    },
    "invoice.payment_failed": {
      category: "exception",
      content: (ev) =>
        `Invoice ${textAt(object(ev), "number") ?? textAt(object(ev), "id") ?? ""} payment failed${describeAmount(object(ev).amount_due, object(ev).currency)}${customer(ev) ? ` for customer ${customer(ev)}` : ""}.`,
      fields: () => ({ severity: "high", status: "open" }),
      tags: ["invoice", "payment_failed"],
      data: (ev) => ({
        invoice: textAt(object(ev), "id"),
        customer: customer(ev),
        attempt_count: object(ev).attempt_count,
        ...money(object(ev).amount_due, object(ev).currency),
      }),
      object: customer,
      validFrom: (ev) => ev.created,
    },
    "charge.dispute.created": {
      category: "exception",
      content: (ev) =>
        `A dispute was opened on charge ${textAt(object(ev), "charge") ?? ""}${describeAmount(object(ev).amount, object(ev).currency)}: ${textAt(object(ev), "reason") ?? "no reason given"}.`,
      fields: () => ({ severity: "critical", status: "open" }),
      tags: ["dispute"],
      data: (ev) => ({
        dispute: textAt(object(ev), "id"),
        charge: textAt(object(ev), "charge"),
        reason: textAt(object(ev), "reason"),
        ...money(object(ev).amount, object(ev).currency),
      }),
      validFrom: (ev) => ev.created,
    },
    "customer.subscription.updated": {
      category: "decision",
      content: (ev) => {
        const plan =
          textAt(object(ev), "plan.nickname") ??
          textAt(object(ev), "plan.id") ??
          textAt(object(ev), "items.data.0.price.id");
        return `Subscription ${textAt(object(ev), "id") ?? ""} of customer ${customer(ev) ?? "?"} is now ${textAt(object(ev), "status") ?? "updated"}${plan ? ` on plan ${plan}` : ""}.`;
      },
      fields: (ev) => ({
        stage: textAt(object(ev), "status")?.slice(0, 128),
        chosen: textAt(object(ev), "plan.id") ?? textAt(object(ev), "status"),
      }),
      tags: ["subscription"],
      data: (ev) => ({
        subscription: textAt(object(ev), "id"),
        customer: customer(ev),
        status: textAt(object(ev), "status"),
        previous: (ev.data as { previous_attributes?: unknown } | undefined)?.previous_attributes,
      }),
      object: customer,
      validFrom: (ev) => ev.created,
    },
  },
});
