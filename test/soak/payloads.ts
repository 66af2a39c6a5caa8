/**
 * The events the soak and the storm test send, named by a label unique to the operation so every
 * entry can be traced back to the one request that should have made it.
 */
import type { BridgeEvent } from "../../src/lib.ts";
import { paymentsSender } from "../fakes/senders/payments.ts";

/** A data platform job run that succeeded: maps to one fact, `event_id` `jobs.on_success:<run_id>`. */
export function jobEvent(runId: string) {
  return {
    event_type: "jobs.on_success",
    workspace_id: 7,
    run: { run_id: runId, run_duration: 1200 },
    job: { job_id: 3, name: "nightly" },
  };
}

export const jobEventId = (runId: string): string => `jobs.on_success:${runId}`;

/** A model promotion without its `to_stage`: a mapped event missing what the mapping needs (dead letter). */
export function promotionWithoutStage(version: string) {
  return {
    event: "MODEL_VERSION_TRANSITIONED_STAGE",
    webhook_id: "wh-soak",
    event_timestamp: 1763719200000,
    model_name: "soak-model",
    version,
  };
}

export const promotionEventId = (version: string): string =>
  `MODEL_VERSION_TRANSITIONED_STAGE:soak-model:${version}:1763719200000`;

/** A failed invoice payment (maps to one exception); its Stripe-style `id` is the event id. */
export function invoiceFailed(eventId: string, createdSeconds: number) {
  return {
    id: eventId,
    object: "event",
    created: createdSeconds,
    livemode: false,
    type: "invoice.payment_failed",
    data: {
      object: {
        id: `in_${eventId}`,
        customer: "cus_soak",
        amount_due: 4200,
        currency: "eur",
        attempt_count: 1,
      },
    },
  };
}

/** The headers a payments platform sends with `body`, signed now. */
export async function paymentsHeaders(body: string, url: string): Promise<Record<string, string>> {
  return (await paymentsSender.sign(body, { now: Date.now(), url })).headers;
}

/** A chat message whose `ts` is derived from `n` (unique per operation), seconds in the past. */
export function chatMessage(n: number, text: string): Extract<BridgeEvent, { type: "message" }> {
  return { type: "message", channel: "C-soak", user: "U-author", text, ts: chatTs(n) };
}

/** The ✅ reaction that promotes message `n` to a decision. */
export function promotion(n: number): Extract<BridgeEvent, { type: "reaction_added" }> {
  return {
    type: "reaction_added",
    user: "U-lead",
    reaction: "white_check_mark",
    item: { type: "message", channel: "C-soak", ts: chatTs(n) },
    event_ts: chatTs(n),
  };
}

/** Bridge event ids are `{channel}:{ts}:{type}`. */
export const chatEventId = (n: number, type: "message" | "reaction_added"): string =>
  `C-soak:${chatTs(n)}:${type}`;

/** November 2023 onwards: always in the past, so listings at "now" see the entries. */
function chatTs(n: number): string {
  return `${1_700_000_000 + n}.000100`;
}
