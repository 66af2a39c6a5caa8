/**
 * `office_graph` (Microsoft Graph change notifications). Graph signs nothing. Creating a subscription
 * proves the URL with `?validationToken=`, echoed as text/plain; afterwards each notification of a
 * delivery `{value: [...]}` carries the subscription's `clientState`, and every one must equal the
 * tenant's, else the whole delivery is a 401. Basic notifications name the changed item, not its
 * content: entries say which item changed and where Graph serves it.
 */
import { BadRequest, Unauthorized } from "../errors/domain-errors.ts";
import { anyOf, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { text } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { safeEqual } from "./kit/signature.ts";
import type { WebhookReply, WebhookRequest } from "./types.ts";

const SECRET = "OFFICE_GRAPH_CLIENT_STATE";
/** Graph's tokens are a sentence and a request id; a longer one is not Graph's to echo. */
const MAX_VALIDATION_TOKEN = 1024;

/** Subscription validation: Graph expects the decoded token back, as text/plain, within 10 s. */
function validation(req: WebhookRequest): WebhookReply | undefined {
  let token: string | null;
  try {
    token = new URL(req.url, "http://localhost").searchParams.get("validationToken");
  } catch {
    return undefined;
  }
  if (!token || token.length > MAX_VALIDATION_TOKEN) return undefined;
  return {
    status: 200,
    // nosniff: the echo is the caller's text, never to be rendered as anything but text.
    headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" },
    body: token,
  };
}

const resourceData = (ev: Event): Record<string, unknown> =>
  isRecord(ev.resourceData) ? ev.resourceData : {};
const itemId = (ev: Event) => text(resourceData(ev).id) ?? text(resourceData(ev).Id);
const etag = (ev: Event) => text(resourceData(ev)["@odata.etag"]);
/** The user whose mailbox or calendar it is: `users/{id}/…` (app subscriptions), else `me`. */
const user = (ev: Event) =>
  /(?:^|\/)users\/([^/]+)/i.exec(textAt(ev, "resource") ?? "")?.[1] ??
  (/^\/?me\//i.test(textAt(ev, "resource") ?? "") ? "me" : undefined);
const itemUrl = (ev: Event) => {
  const resource = textAt(ev, "resource")?.replace(/^\/+/, "");
  return resource ? `https://graph.microsoft.com/v1.0/${resource}` : undefined;
};

/** What changed, from resourceData's `@odata.type` or else the resource path: `message`, `event`, … */
function kindOf(ev: Event): string {
  const type = text(resourceData(ev)["@odata.type"])?.toLowerCase() ?? "";
  const resource = textAt(ev, "resource")?.toLowerCase() ?? "";
  // An eventMessage (a meeting request) is still mail.
  if (/\.(event)?message$/.test(type) || /(^|\/)messages(\/|\(|$)/.test(resource)) return "message";
  if (type.endsWith(".event") || /(^|\/)events(\/|\(|$)/.test(resource)) return "event";
  return type.split(".").pop()?.replace(/^#/, "") || "resource";
}

/** `message.created`, `event.updated`, …; a lifecycle notification is its event (`subscriptionRemoved`). */
function eventTypeOf(ev: Event): string | undefined {
  const lifecycle = textAt(ev, "lifecycleEvent");
  if (lifecycle) return lifecycle;
  const change = textAt(ev, "changeType");
  return change ? `${kindOf(ev)}.${change}` : undefined;
}

/**
 * Graph gives no id it promises to keep across retries (the optional `id` is documented as unique,
 * not as stable), so the id is what identifies the change: the subscription, the change type, the
 * item, and the item's `@odata.etag`, which is new for every version of it. A retry repeats all
 * four; two updates of one calendar event differ in their etag (where a resource has no etag, the
 * notification's own `id` stands in). A lifecycle notification names no item: its event and the
 * subscription's expiry (which a renewal moves) tell two apart.
 */
function eventIdOf(ev: Event): string | undefined {
  const subscription = textAt(ev, "subscriptionId");
  if (!subscription) return undefined;
  const lifecycle = textAt(ev, "lifecycleEvent");
  const parts = lifecycle
    ? [subscription, lifecycle, textAt(ev, "subscriptionExpirationDateTime")]
    : [subscription, textAt(ev, "changeType"), itemId(ev) ?? textAt(ev, "resource"), etag(ev) ?? text(ev.id)];
  return parts.map((part) => part ?? "").join(":");
}

const common = (ev: Event) => ({
  subscription_id: textAt(ev, "subscriptionId"),
  change_type: textAt(ev, "changeType"),
  resource: textAt(ev, "resource"),
  item_id: itemId(ev),
  odata_type: text(resourceData(ev)["@odata.type"]),
  user: user(ev),
  tenant_id: textAt(ev, "tenantId"),
  url: itemUrl(ev),
});

/** The changed item: its id, else the resource path naming it. */
const ITEM = anyOf("resourceData.id", "resourceData.Id", "resource");

const changed = (what: string, verb: string) => (ev: Event) => {
  const id = (itemId(ev) ?? textAt(ev, "resource"))!;
  const owner = user(ev);
  const url = itemUrl(ev);
  return `${what} ${id} was ${verb}${owner ? ` for user ${owner}` : ""}${url ? `; Graph serves it at ${url}` : ""}.`;
};

const calendarEvent = (verb: "created" | "updated") => ({
  category: "workflow" as const,
  required: [ITEM],
  content: changed("Calendar event", verb),
  tags: ["calendar", `event_${verb}`],
  data: common,
});

export const officeGraphSource = defineSource({
  id: "office_graph",
  secrets: [SECRET],
  challenge: validation,
  // Graph signs nothing: the check is every notification's clientState (authorize).
  verify: (_req, ctx) => (ctx.secrets[SECRET] ? { ok: true } : { ok: false, reason: "secret_missing" }),
  events: (body) => {
    const value = isRecord(body) ? body.value : undefined;
    if (!Array.isArray(value) || value.length === 0)
      throw new BadRequest("a Graph delivery is {value: [...]} with at least one notification");
    return value;
  },
  authorize: (events, ctx) => {
    const expected = ctx.secrets[SECRET] ?? "";
    // Every notification is compared (no early exit): how many match does not show in the timing.
    let valid = expected !== "";
    for (const ev of events) {
      const given = typeof ev.clientState === "string" ? ev.clientState : "";
      valid = safeEqual(given, expected) && valid;
    }
    if (!valid) throw new Unauthorized("delivery rejected: a notification's clientState does not match");
  },
  // The clientState is Graph's only credential: once checked, no stored notification keeps it.
  credentialFields: ["clientState"],
  eventId: eventIdOf,
  eventType: eventTypeOf,
  mappings: {
    "message.created": {
      category: "fact",
      required: [ITEM],
      content: changed("Mail message", "received"),
      tags: ["mail", "message_created"],
      data: common,
    },
    "event.created": calendarEvent("created"),
    "event.updated": calendarEvent("updated"),
    subscriptionRemoved: {
      category: "exception",
      required: ["subscriptionId"],
      content: (ev) => {
        const resource = textAt(ev, "resource");
        return `Graph removed subscription ${textAt(ev, "subscriptionId")!}${resource ? ` on ${resource}` : ""}: no change notifications arrive until it is created again.`;
      },
      fields: () => ({ severity: "high", status: "open" }),
      tags: ["subscription", "lifecycle"],
      data: (ev) => ({
        subscription_id: textAt(ev, "subscriptionId"),
        resource: textAt(ev, "resource"),
        subscription_expires: textAt(ev, "subscriptionExpirationDateTime"),
        tenant_id: textAt(ev, "tenantId"),
      }),
    },
  },
});
