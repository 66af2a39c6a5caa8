/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver checks
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed
 * with the bytes of the secret after its `whsec_` prefix, e.g. with the `standardwebhooks`
 * library's `new Webhook(secret).verify(body, headers)`.
 */
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";
/** The spec's bounds on the key: 24 to 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const GENERATED_KEY_BYTES = 32;
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A new secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSecret(): string {
  return PREFIX + randomBytes(GENERATED_KEY_BYTES).toString("base64");
}

/** Why a caller's secret is refused (never quoting it), or undefined when it is well formed. */
export function secretProblem(secret: string): string | undefined {
  if (!secret.startsWith(PREFIX)) return "secret must start with whsec_";
  const encoded = secret.slice(PREFIX.length);
  if (encoded.length === 0 || !BASE64_RE.test(encoded)) return "secret must be whsec_ followed by base64";
  const bytes = Buffer.from(encoded, "base64").length;
  if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES)
    return `secret must encode ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`;
  return undefined;
}

/** The HMAC key of a well-formed secret. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/** The `webhook-signature` header's value. */
export function signatureOf(key: Buffer, webhookId: string, timestampS: number, body: string): string {
  const mac = createHmac("sha256", key).update(`${webhookId}.${timestampS}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** Stable per event (tenant and change position), the same on every retry: receivers dedupe by it. */
export function webhookIdOf(tenantId: string, seq: number): string {
  return `msg_${tenantId}_${seq}`;
}

/** Every header of one attempt; the timestamp is the attempt's (receivers bound its age). */
export function webhookHeaders(
  key: Buffer,
  webhookId: string,
  nowMs: number,
  body: string,
): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "content-type": "application/json",
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureOf(key, webhookId, timestamp, body),
  };
}
