import { createHmac, randomBytes } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Calendly's signing: `Calendly-Webhook-Signature: t=<s>,v1=<hex HMAC-SHA256 of "t.body">`, keyed
 * with the webhook subscription's signing key.
 */
export const SCHEDULING_KEY = "8e2Vf3qKp1LwXn7Rj4Td9Yc6Hb0Mz5Ga";
const OLD_KEY = "the-signing-key-before-rotation";

export function calendlyV1(key: string, t: number, body: string): string {
  return createHmac("sha256", key).update(`${t}.${body}`).digest("hex");
}

const headers = (signature: string): Record<string, string> => ({
  "content-type": "application/json; charset=utf-8",
  "user-agent": "Calendly-Webhooks",
  "calendly-webhook-signature": signature,
});

export const schedulingSender: PlatformSender = {
  source: "scheduling",
  secrets: { SCHEDULING_SIGNING_KEY: SCHEDULING_KEY },
  signsBody: true,
  staleMs: 4 * 60_000,
  sign(body: string, { now }: SignOptions): Signed {
    const t = Math.floor(now / 1000);
    return { headers: headers(`t=${t},v1=${calendlyV1(SCHEDULING_KEY, t, body)}`), body };
  },
  signRotated(body: string, { now }: SignOptions): Signed {
    const t = Math.floor(now / 1000);
    return {
      headers: headers(`t=${t},v1=${calendlyV1(OLD_KEY, t, body)},v1=${calendlyV1(SCHEDULING_KEY, t, body)}`),
      body,
    };
  },
};

const uid = () => randomBytes(8).toString("hex").toUpperCase();
const API = "https://api.calendly.com";

/** A scheduled event as the invitee payload embeds it. */
export function scheduledEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uri: `${API}/scheduled_events/${uid()}`,
    name: "Discovery Call",
    status: "active",
    start_time: "2026-11-24T15:00:00.000000Z",
    end_time: "2026-11-24T15:30:00.000000Z",
    event_type: `${API}/event_types/GBGBDCAADAEDCRZ2`,
    location: { type: "zoom", status: "pushed", join_url: "https://us02web.zoom.us/j/81234567890" },
    invitees_counter: { total: 1, active: 1, limit: 1 },
    created_at: "2026-11-21T09:57:00.000000Z",
    updated_at: "2026-11-21T09:57:00.000000Z",
    event_memberships: [
      { user: `${API}/users/AAAAAAAAAAAAAAAA`, user_email: "ada@acme.example", user_name: "Ada Lovelace" },
    ],
    event_guests: [],
    ...overrides,
  };
}

/** An invitee as the payload of `invitee.*` and `invitee_no_show.*` events carries it. */
export function invitee(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const event = (overrides.scheduled_event as Record<string, unknown> | undefined) ?? scheduledEvent();
  const id = uid();
  return {
    uri: `${event.uri}/invitees/${id}`,
    email: "grace@example.com",
    first_name: "Grace",
    last_name: "Hopper",
    name: "Grace Hopper",
    status: "active",
    timezone: "America/New_York",
    event: event.uri,
    created_at: "2026-11-21T09:57:00.000000Z",
    updated_at: "2026-11-21T09:57:00.000000Z",
    questions_and_answers: [
      { question: "What would you like to discuss?", answer: "Pricing for 40 seats", position: 0 },
    ],
    tracking: {
      utm_campaign: "q4-launch",
      utm_source: "newsletter",
      utm_medium: null,
      utm_content: null,
      utm_term: null,
    },
    text_reminder_number: null,
    rescheduled: false,
    old_invitee: null,
    new_invitee: null,
    cancel_url: `https://calendly.com/cancellations/${id}`,
    reschedule_url: `https://calendly.com/reschedulings/${id}`,
    routing_form_submission: null,
    payment: null,
    no_show: null,
    reconfirmation: null,
    scheduling_method: null,
    invitee_scheduled_by: null,
    scheduled_event: event,
    ...overrides,
  };
}

/** A webhook body: `{event, created_at, created_by, payload}`. */
export function calendlyEvent(event: string, payload: Record<string, unknown> = invitee()): string {
  return JSON.stringify({
    event,
    created_at: "2026-11-21T09:58:00.000000Z",
    created_by: `${API}/users/AAAAAAAAAAAAAAAA`,
    payload,
  });
}

/** The same invitee, canceled (`payload.cancellation` set, `status: canceled`). */
export function canceled(
  payload: Record<string, unknown>,
  cancellation: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    ...payload,
    status: "canceled",
    updated_at: "2026-11-21T09:59:00.000000Z",
    cancellation: {
      canceled_by: "Grace Hopper",
      reason: "A conflicting board meeting",
      canceler_type: "invitee",
      created_at: "2026-11-21T09:59:00.000000Z",
      ...cancellation,
    },
  };
}

/** The same invitee, marked as a no-show. */
export function noShow(payload: Record<string, unknown>): Record<string, unknown> {
  return {
    ...payload,
    no_show: { uri: `${API}/invitee_no_shows/${uid()}`, created_at: "2026-11-24T15:20:00.000000Z" },
  };
}
