import { createHmac, randomUUID } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Standard Webhooks: `webhook-id`, `webhook-timestamp` (s), `webhook-signature: v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">`, keyed with the base64-decoded bytes after `whsec_`.
 */
export const STANDARD_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD_SECRET = "whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZA==";

function v1(secret: string, id: string, ts: number, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64")}`;
}

/** The message id is fixed per body, as a sender retrying one message keeps it. */
const ids = new Map<string, string>();
const idOf = (body: string) => {
  if (!ids.has(body)) ids.set(body, `msg_${randomUUID().replaceAll("-", "")}`);
  return ids.get(body)!;
};

function headers(id: string, ts: number, signature: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(ts),
    "webhook-signature": signature,
  };
}

export const standardSender: PlatformSender = {
  source: "standard",
  secrets: { STANDARD_WEBHOOK_SECRET: STANDARD_SECRET },
  signsBody: true,
  staleMs: 6 * 60_000,
  sign(body: string, { now }: SignOptions): Signed {
    const ts = Math.floor(now / 1000);
    const id = idOf(body);
    return { headers: headers(id, ts, v1(STANDARD_SECRET, id, ts, body)), body };
  },
  signRotated(body: string, { now }: SignOptions): Signed {
    const ts = Math.floor(now / 1000);
    const id = idOf(body);
    const list = `${v1(OLD_SECRET, id, ts, body)} ${v1(STANDARD_SECRET, id, ts, body)}`;
    return { headers: headers(id, ts, list), body };
  },
};

let n = 0;

/** A Standard Webhooks payload: `{type, timestamp, data}`. */
export function standardEvent(type: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: "2026-11-21T09:59:00.000Z", data: { ...data, seq: ++n } });
}
