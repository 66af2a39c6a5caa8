import type { WebhookRecords } from "../../../src/vault/webhook-records.ts";

/** The webhook records one event adds to a write set: its log record, a held event's release. */
export interface WebhookPart {
  webhooks?: WebhookRecords;
}

/** Several events' parts as one (the log records of a delivery's duplicates, written together). */
export function mergeParts(parts: WebhookPart[]): WebhookPart {
  const log: NonNullable<WebhookRecords["log"]> = [];
  const released: NonNullable<WebhookRecords["released"]> = [];
  for (const { webhooks } of parts) {
    log.push(...(webhooks?.log ?? []));
    released.push(...(webhooks?.released ?? []));
  }
  return { webhooks: { log, ...(released.length > 0 ? { released } : {}) } };
}
