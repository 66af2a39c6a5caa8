/**
 * `payments` (modelled on Stripe): `Stripe-Signature: t=..,v1=..`, HMAC-SHA256 hex of `t.body`,
 * any `v1` (secret rotation), a 5-minute window. One event per delivery; its `id` (evt_…) dedupes.
 * A subscription change is a decision about the customer; a payment that succeeds for that
 * customer is the outcome resolving it (else a fact tagged `outcome`).
 */
import { anyOf, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { nameAndEmail } from "./kit/draft.ts";
import { moneyOf, moneyPhrase } from "./kit/money.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const object = (ev: Event) => (ev.data as { object?: Record<string, unknown> } | undefined)?.object ?? {};
/** A field of the event's object (`data.object.<path>`). */
const field = (ev: Event, path: string) => textAt(ev, `data.object.${path}`);
/** The customer's id: `customer` is an id, or the customer itself when the platform expands it. */
const customer = (ev: Event) => field(ev, "customer") ?? field(ev, "customer.id");
/** The name people know the customer by: the invoice's, the expanded customer's, or the billing details'. */
const customerName = (ev: Event) =>
  field(ev, "customer_name") ??
  field(ev, "customer.name") ??
  field(ev, "billing_details.name") ??
  field(ev, "evidence.customer_name");
const customerEmail = (ev: Event) =>
  field(ev, "customer_email") ??
  field(ev, "receipt_email") ??
  field(ev, "customer.email") ??
  field(ev, "billing_details.email") ??
  field(ev, "evidence.customer_email_address");
/** `Acme Ltd <billing@acme.example> (customer cus_…)`, or whichever part is known. */
const customerPhrase = (ev: Event) => {
  const who = nameAndEmail(customerName(ev), customerEmail(ev));
  const id = customer(ev) ? `customer ${customer(ev)}` : undefined;
  return who && id ? `${who} (${id})` : (who ?? id);
};
const forCustomer = (ev: Event) => (customerPhrase(ev) ? ` for ${customerPhrase(ev)}` : "");
/** What the payment or invoice was for, as the platform describes it (`: Pro plan, May`). */
const described = (ev: Event) => (field(ev, "description") ? `: ${field(ev, "description")}` : "");
/** The names kept in `data` (searchable at low weight; the id stays for joins). */
const names = (ev: Event) => ({
  customer_name: customerName(ev),
  customer_email: customerEmail(ev),
  description: field(ev, "description"),
});
/** The invoice object a field names (`invoice:in_…`), the lifecycle's object of an invoice. */
const invoiceOf = (ev: Event, path: string) => {
  const id = field(ev, path);
  return id ? `invoice:${id}` : undefined;
};
/** A dispute's object: its charge (the opening and the closing events both name it). */
const disputeOf = (ev: Event) => `dispute:${field(ev, "charge")!}`;
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
  // A deleted subscription is its last update: status canceled.
  row: (type) => (type === "customer.subscription.deleted" ? "customer.subscription.updated" : type),
  mappings: {
    "payment_intent.succeeded": {
      category: "outcome",
      required: ["data.object.id"],
      content: (ev) =>
        `Payment ${field(ev, "id")!} succeeded${describeAmount(object(ev).amount_received ?? object(ev).amount, object(ev).currency)}${forCustomer(ev)}${described(ev)}.`,
      fields: (ev) => ({
        result: "success",
        ...money(object(ev).amount_received ?? object(ev).amount, object(ev).currency),
      }),
      tags: ["payment"],
      data: (ev) => ({
        payment_intent: field(ev, "id"),
        customer: customer(ev),
        ...names(ev),
        livemode: ev.livemode,
      }),
      object: customer,
      // The invoice it pays is closed: its failed payment is resolved.
      closes: (ev) => [invoiceOf(ev, "invoice")],
      validFrom: (ev) => ev.created,
    },
    "invoice.paid": {
      category: "outcome",
      required: ["data.object.id"],
      content: (ev) =>
        `Invoice ${field(ev, "number") ?? field(ev, "id")!} was paid${describeAmount(object(ev).amount_paid, object(ev).currency)}${forCustomer(ev)}${described(ev)}.`,
      fields: (ev) => ({ result: "success", ...money(object(ev).amount_paid, object(ev).currency) }),
      tags: ["invoice", "paid"],
      data: (ev) => ({ invoice: field(ev, "id"), customer: customer(ev), ...names(ev) }),
      object: customer,
      closes: (ev) => [invoiceOf(ev, "id")],
      validFrom: (ev) => ev.created,
    },
    "invoice.payment_failed": {
      category: "exception",
      required: [anyOf("data.object.number", "data.object.id")],
      content: (ev) =>
        `Invoice ${field(ev, "number") ?? field(ev, "id")!} payment failed${describeAmount(object(ev).amount_due, object(ev).currency)}${forCustomer(ev)}${described(ev)}.`,
      fields: () => ({ severity: "high", status: "open" }),
      tags: ["invoice", "payment_failed"],
      data: (ev) => ({
        invoice: field(ev, "id"),
        customer: customer(ev),
        ...names(ev),
        attempt_count: object(ev).attempt_count,
        ...money(object(ev).amount_due, object(ev).currency),
      }),
      // Of its invoice, which a payment of it closes; the customer stays in `data`.
      object: (ev) => invoiceOf(ev, "id"),
      validFrom: (ev) => ev.created,
    },
    "charge.dispute.created": {
      category: "exception",
      required: ["data.object.charge"],
      content: (ev) =>
        `A dispute was opened on charge ${field(ev, "charge")!}${describeAmount(object(ev).amount, object(ev).currency)}${forCustomer(ev)}${field(ev, "reason") ? `: ${field(ev, "reason")}` : " (no reason given)"}.`,
      fields: () => ({ severity: "critical", status: "open" }),
      tags: ["dispute"],
      data: (ev) => ({
        dispute: field(ev, "id"),
        charge: field(ev, "charge"),
        reason: field(ev, "reason"),
        customer: customer(ev),
        ...names(ev),
        ...money(object(ev).amount, object(ev).currency),
      }),
      object: disputeOf,
      validFrom: (ev) => ev.created,
    },
    "charge.dispute.closed": {
      category: "outcome",
      required: ["data.object.charge"],
      content: (ev) =>
        `The dispute on charge ${field(ev, "charge")!} was closed${field(ev, "status") ? ` (${field(ev, "status")})` : ""}${describeAmount(object(ev).amount, object(ev).currency)}${forCustomer(ev)}.`,
      fields: (ev) => ({
        result:
          field(ev, "status") === "won" ? "success" : field(ev, "status") === "lost" ? "failure" : "neutral",
        ...money(object(ev).amount, object(ev).currency),
      }),
      tags: ["dispute", "closed"],
      data: (ev) => ({
        dispute: field(ev, "id"),
        charge: field(ev, "charge"),
        status: field(ev, "status"),
        customer: customer(ev),
        ...names(ev),
      }),
      object: disputeOf,
      lifecycle: "close",
      validFrom: (ev) => ev.created,
    },
    "customer.subscription.updated": {
      category: "decision",
      // The status is the decision's stage: an update without one says nothing was decided.
      required: ["data.object.id", "data.object.customer", "data.object.status"],
      content: (ev) => {
        const plan = field(ev, "plan.nickname") ?? field(ev, "plan.id") ?? field(ev, "items.data.0.price.id");
        return `Subscription ${field(ev, "id")!} of ${customerPhrase(ev)!} is now ${field(ev, "status")!}${plan ? ` on plan ${plan}` : ""}${described(ev)}.`;
      },
      fields: (ev) => ({
        stage: field(ev, "status")!.slice(0, 128),
        chosen: field(ev, "plan.id") ?? field(ev, "status")!,
      }),
      tags: ["subscription"],
      data: (ev) => ({
        subscription: field(ev, "id"),
        customer: customer(ev),
        ...names(ev),
        status: field(ev, "status"),
        previous: (ev.data as { previous_attributes?: unknown } | undefined)?.previous_attributes,
      }),
      object: customer,
      // The customer's subscription state; cancelled (or deleted), its last one.
      lifecycle: (ev) => (field(ev, "status") === "canceled" ? "close" : "state"),
      validFrom: (ev) => ev.created,
    },
  },
});
