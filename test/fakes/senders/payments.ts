import { createHmac } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/** Stripe's signing: `Stripe-Signature: t=<s>,v1=<hex HMAC-SHA256 of "t.body">`. */
export const PAYMENTS_SECRET = "whsec_test_payments_0123456789abcdef";

function v1(secret: string, t: number, body: string): string {
  return createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
}

export const paymentsSender: PlatformSender = {
  source: "payments",
  secrets: { PAYMENTS_WEBHOOK_SECRET: PAYMENTS_SECRET },
  signsBody: true,
  staleMs: 6 * 60_000,
  sign(body: string, { now }: SignOptions): Signed {
    const t = Math.floor(now / 1000);
    return {
      headers: {
        "content-type": "application/json",
        "stripe-signature": `t=${t},v1=${v1(PAYMENTS_SECRET, t, body)}`,
      },
      body,
    };
  },
  signRotated(body: string, { now }: SignOptions): Signed {
    const t = Math.floor(now / 1000);
    const header = `t=${t},v1=${v1("whsec_the_old_secret", t, body)},v1=${v1(PAYMENTS_SECRET, t, body)}`;
    return { headers: { "content-type": "application/json", "stripe-signature": header }, body };
  },
};

let counter = 0;

/** A Stripe event envelope: `{id, object: "event", type, created, data: {object}}`. */
export function stripeEvent(type: string, object: Record<string, unknown>, created = 1763719200): string {
  return JSON.stringify({
    id: `evt_test_${++counter}_${Math.random().toString(36).slice(2, 10)}`,
    object: "event",
    api_version: "2025-10-29",
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: { object },
  });
}
