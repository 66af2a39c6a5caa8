import { createHmac, randomInt, randomUUID } from "node:crypto";
import type { PlatformSender, Signed } from "./sender.ts";

/**
 * Intercom's signing: `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the body>`, keyed with the app's
 * client secret (Developer Hub → Basic information).
 */
export const SUPPORT_CHAT_SECRET = "a1b2c3d4-e5f6-47a8-9b0c-d1e2f3a4b5c6";
const OLD_SECRET = "00000000-0000-4000-8000-000000000000";

export function intercomSignature(secret: string, body: string): string {
  return `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`;
}

const signed = (body: string, signature: string): Signed => ({
  headers: {
    "content-type": "application/json",
    "user-agent": "Intercom-Webhooks-Inspector/1.0",
    "x-hub-signature": signature,
  },
  body,
});

export const supportChatSender: PlatformSender = {
  source: "support_chat",
  secrets: { SUPPORT_CHAT_CLIENT_SECRET: SUPPORT_CHAT_SECRET },
  signsBody: true,
  sign: (body) => signed(body, intercomSignature(SUPPORT_CHAT_SECRET, body)),
  // Intercom sends one signature; a header sent twice arrives joined with ", ".
  signRotated: (body) =>
    signed(body, `${intercomSignature(OLD_SECRET, body)}, ${intercomSignature(SUPPORT_CHAT_SECRET, body)}`),
};

// ── real-shaped payloads ────────────────────────────────────────────────────────────────────

export const APP_ID = "x7k2m9qp";
const CREATED = Math.floor(Date.UTC(2026, 10, 21, 9, 59, 30) / 1000);

/** A notification: `{type: "notification_event", app_id, data: {type, item}, id, topic, created_at, ...}`. */
export function notification(
  topic: string,
  item: Record<string, unknown>,
  id: string | null = `notif_${randomUUID()}`,
): string {
  return JSON.stringify({
    type: "notification_event",
    app_id: APP_ID,
    data: { type: "notification_event_data", item },
    links: {},
    id,
    topic,
    delivery_status: "pending",
    delivery_attempts: 1,
    delivered_at: 0,
    first_sent_at: CREATED,
    created_at: CREATED,
    self: null,
  });
}

const ada = { type: "user", id: "6762f0d51bb69f9f2193bb7f", name: "Ada Lovelace", email: "ada@example.com" };
const grace = { type: "admin", id: "991267543", name: "Grace Hopper", email: "grace@acme.test" };

function part(partType: string, body: string | null, author = grace) {
  return {
    type: "conversation_part",
    id: String(randomInt(100_000_000, 999_999_999)),
    part_type: partType,
    body,
    created_at: CREATED,
    updated_at: CREATED,
    notified_at: CREATED,
    assigned_to: null,
    author,
    attachments: [],
    external_id: null,
    redacted: false,
  };
}

export function conversation(opts: { id?: string; state?: string; parts?: unknown[] } = {}) {
  const id = opts.id ?? String(randomInt(100_000, 999_999));
  const state = opts.state ?? "open";
  return {
    type: "conversation",
    id,
    created_at: Math.floor(Date.UTC(2026, 10, 21, 9, 12, 0) / 1000),
    updated_at: CREATED,
    waiting_since: null,
    snoozed_until: null,
    source: {
      type: "conversation",
      id: String(randomInt(100_000_000, 999_999_999)),
      delivered_as: "customer_initiated",
      subject: "",
      body: "<p>Hi, I was charged <b>twice</b> for order #1042.</p><p>Can you refund one?</p>",
      author: ada,
      attachments: [],
      url: null,
      redacted: false,
    },
    contacts: {
      type: "contact.list",
      contacts: [{ type: "contact", id: ada.id, external_id: "cus_Q1w2E3" }],
    },
    admin_assignee_id: state === "open" ? null : Number(grace.id),
    team_assignee_id: null,
    open: state === "open",
    state,
    read: true,
    tags: { type: "tag.list", tags: [{ type: "tag", id: "8112", name: "billing" }] },
    priority: "not_priority",
    statistics: {
      type: "conversation_statistics",
      time_to_first_close: state === "closed" ? 2730 : null,
      last_close_at: state === "closed" ? CREATED : null,
      count_reopens: 0,
    },
    title: null,
    custom_attributes: {},
    conversation_parts: {
      type: "conversation_part.list",
      conversation_parts: opts.parts ?? [],
      total_count: opts.parts?.length ?? 0,
    },
  };
}

export function conversationCreated(id?: string): string {
  return notification("conversation.user.created", conversation({ id }));
}

export function conversationClosed(id?: string): string {
  return notification(
    "conversation.admin.closed",
    conversation({ id, state: "closed", parts: [part("close", "<p>Refunded the duplicate charge.</p>")] }),
  );
}

export function conversationReopened(id?: string): string {
  return notification("conversation.admin.opened", conversation({ id, parts: [part("open", null)] }));
}

export function conversationReplied(id?: string): string {
  return notification(
    "conversation.admin.replied",
    conversation({ id, parts: [part("comment", "<p>Looking into it now.</p>")] }),
  );
}

export function contact(role: "user" | "lead", extra: Record<string, unknown> = {}) {
  return {
    type: "contact",
    id: randomUUID().replaceAll("-", "").slice(0, 24),
    workspace_id: APP_ID,
    external_id: role === "user" ? "cus_Q1w2E3" : null,
    role,
    email: "ada@example.com",
    phone: null,
    name: "Ada Lovelace",
    avatar: null,
    owner_id: null,
    has_hard_bounced: false,
    marked_email_as_spam: false,
    unsubscribed_from_emails: false,
    created_at: Math.floor(Date.UTC(2026, 10, 21, 9, 59, 0) / 1000),
    updated_at: CREATED,
    signed_up_at: role === "user" ? CREATED : null,
    last_seen_at: null,
    location: { type: "location", country: "United Kingdom", region: "England", city: "London" },
    companies: { type: "list", data: [], url: "/contacts/x/companies", total_count: 0, has_more: false },
    tags: { type: "list", data: [], url: "/contacts/x/tags", total_count: 0, has_more: false },
    ...extra,
  };
}

/** The legacy `user.created` topic (API 1.x): the item is a `user`. */
export function legacyUserCreated(): string {
  return notification("user.created", {
    type: "user",
    id: randomUUID().replaceAll("-", "").slice(0, 24),
    user_id: "25",
    email: "grace@example.com",
    name: "Grace Hopper",
    created_at: CREATED,
    location_data: { type: "location_data", country_name: "United States" },
  });
}

/** The ping Intercom sends to test a subscription (it has no notification id). */
export function ping(): string {
  return notification("ping", { type: "ping", message: "something something interzen" }, null);
}
