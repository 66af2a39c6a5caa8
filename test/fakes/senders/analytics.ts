import { createHmac, randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/** Segment's Webhooks destination: `X-Signature: <hex HMAC-SHA1 of the body>`, keyed with the secret. */
export const ANALYTICS_SECRET = "segment-shared-secret-5b1e9c";

export function segmentSignature(secret: string, body: string): string {
  return createHmac("sha1", secret).update(body).digest("hex");
}

export const analyticsSender: PlatformSender = {
  source: "analytics",
  secrets: { ANALYTICS_SHARED_SECRET: ANALYTICS_SECRET },
  signsBody: true,
  sign(body: string): Signed {
    return {
      headers: {
        "content-type": "application/json",
        "x-signature": segmentSignature(ANALYTICS_SECRET, body),
      },
      body,
    };
  },
  // Segment sends one signature; a header sent twice arrives joined with ", ".
  signRotated(body: string): Signed {
    const both = `${segmentSignature("segment-old-secret", body)}, ${segmentSignature(ANALYTICS_SECRET, body)}`;
    return { headers: { "content-type": "application/json", "x-signature": both }, body };
  },
};

/** A Segment spec message with the common fields, a fresh messageId per call. */
export function segmentMessage(type: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    type,
    messageId: `ajs-next-${randomUUID()}`,
    anonymousId: "507f191e810c19729de860ea",
    channel: "server",
    context: {
      ip: "8.8.8.8",
      library: { name: "analytics-node", version: "2.1.0" },
      page: { url: "https://shop.example.com/checkout" },
    },
    integrations: {},
    originalTimestamp: "2026-11-21T09:58:59.000Z",
    receivedAt: "2026-11-21T09:59:01.120Z",
    sentAt: "2026-11-21T09:59:00.900Z",
    timestamp: "2026-11-21T09:59:00.000Z",
    version: 2,
    ...fields,
  });
}
