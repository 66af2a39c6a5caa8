/**
 * Verified webhook throughput: deliveries signed per request with fresh event ids, through the real
 * route, signature check, ingest pipeline and tenant actor (every event committed before its 200).
 * `payments`: one Stripe-style event per delivery; `marketing_crm`: batches of 100 events.
 */
import { createHash, createHmac } from "node:crypto";
import { type LoadResult, load } from "../load.ts";

export const WEBHOOK_SECRETS = {
  PAYMENTS_WEBHOOK_SECRET: "whsec_bench_payments_secret",
  MARKETING_CRM_CLIENT_SECRET: "bench-marketing-crm-client-secret",
  MARKETING_CRM_APP_ID: "54321",
};

export interface WebhookLoad extends LoadResult {
  events_per_delivery: number;
  events_per_s: number;
}

let sequence = 0;

/** One verified payments delivery of one event, with a fresh event id. */
export function paymentsDelivery() {
  const n = ++sequence;
  const body = JSON.stringify({
    id: `evt_bench_${n}`,
    object: "event",
    type: "invoice.payment_failed",
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `in_${n}`,
        number: `INV-${n}`,
        amount_due: 4200,
        currency: "usd",
        customer: `cus_${n % 97}`,
      },
    },
  });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac("sha256", WEBHOOK_SECRETS.PAYMENTS_WEBHOOK_SECRET)
    .update(`${t}.${body}`)
    .digest("hex");
  return { body, headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${v1}` } };
}

function marketingBatch() {
  const events = Array.from({ length: 100 }, () => {
    const n = ++sequence;
    return {
      eventId: n,
      subscriptionId: 1,
      portalId: 62515,
      appId: Number(WEBHOOK_SECRETS.MARKETING_CRM_APP_ID),
      occurredAt: 1763719200000 + n,
      subscriptionType: "contact.creation",
      attemptNumber: 0,
      objectId: n,
      changeSource: "CRM",
      properties: { firstname: `Ada${n}`, lastname: "Lovelace", company: "Analytical Engines" },
    };
  });
  const body = JSON.stringify(events);
  const signature = createHash("sha256")
    .update(WEBHOOK_SECRETS.MARKETING_CRM_CLIENT_SECRET)
    .update(body)
    .digest("hex");
  return { body, headers: { "content-type": "application/json", "x-marketingcrm-signature": signature } };
}

/** One load of each scenario; `between` runs after each (e.g. waiting for the tenant's index to settle). */
export async function webhookLoads(
  serviceUrl: string,
  tenantId: string,
  between: () => Promise<unknown> = async () => undefined,
): Promise<WebhookLoad[]> {
  const runs: Array<[string, string, number, () => { body: string; headers: Record<string, string> }]> = [
    ["service POST /webhooks/payments (1 event, verified)", "payments", 1, paymentsDelivery],
    ["service POST /webhooks/marketing_crm (100 events, verified)", "marketing_crm", 100, marketingBatch],
  ];
  const out: WebhookLoad[] = [];
  for (const [name, source, perDelivery, perRequest] of runs) {
    const result = await load({
      name,
      url: `${serviceUrl}/webhooks/${source}/${tenantId}`,
      method: "POST",
      connections: 32,
      perRequest,
    });
    out.push({ ...result, events_per_delivery: perDelivery, events_per_s: result.rps * perDelivery });
    await between();
  }
  return out;
}
