/**
 * `support_chat` (modelled on Intercom): `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the raw body>`, keyed
 * with the app's client secret. Each delivery is one notification `{type: "notification_event", id,
 * topic, created_at, data: {item}}`; its `id` dedupes and its `topic` is the event type. The `ping`
 * Intercom sends to test a subscription is answered after the signature check with nothing written.
 */
import {
  at,
  defineSource,
  type Event,
  type EventMapping,
  jsonReply,
  NOTHING_WRITTEN,
  textAt,
} from "./kit/define-source.ts";
import { clip, nameAndEmail } from "./kit/draft.ts";
import { isRecord } from "./kit/request.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const item = (ev: Event, path: string) => textAt(ev, `data.item.${path}`);
/** The conversation's (or contact's) id, which every mapping requires. */
const itemId = (ev: Event) => item(ev, "id")!;

/** Message bodies are HTML; an agent reads their text. */
function plain(html: unknown, max = 500): string | undefined {
  if (typeof html !== "string") return undefined;
  const text = html
    .replace(/<br\s*\/?>|<\/p>/gi, " ")
    .replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  return text ? clip(text, max) : undefined;
}

const person = (who: unknown) => {
  const named = nameAndEmail(textAt(who, "name"), textAt(who, "email"));
  return (
    named ?? (textAt(who, "id") ? `${textAt(who, "type") ?? "contact"} ${textAt(who, "id")}` : undefined)
  );
};

/** ` by Grace Hopper <grace@acme.test>`, or nothing when the part names no one. */
const by = (who: unknown) => (person(who) ? ` by ${person(who)}` : "");

/** The newest part of a conversation: the close or reopen an admin topic reports, with its author. */
function lastPart(ev: Event): Record<string, unknown> | undefined {
  const parts = at(ev, "data.item.conversation_parts.conversation_parts");
  if (!Array.isArray(parts)) return undefined;
  const last = parts.at(-1);
  return isRecord(last) ? last : undefined;
}

const tagNames = (ev: Event) => {
  const tags = at(ev, "data.item.tags.tags");
  return Array.isArray(tags) ? tags.map((tag) => textAt(tag, "name")) : [];
};

const conversationData = (ev: Event) => ({
  conversation_id: item(ev, "id"),
  title: item(ev, "title"),
  state: item(ev, "state"),
  channel: item(ev, "source.delivered_as") ?? item(ev, "source.type"),
  author: person(at(ev, "data.item.source.author")),
  contacts: (() => {
    const list = at(ev, "data.item.contacts.contacts");
    return Array.isArray(list) ? list.map((c) => textAt(c, "id")).filter(Boolean) : undefined;
  })(),
  admin_assignee_id: item(ev, "admin_assignee_id"),
  team_assignee_id: item(ev, "team_assignee_id"),
  priority: item(ev, "priority"),
  app_id: textAt(ev, "app_id"),
});

const subjectOf = (ev: Event) =>
  item(ev, "title") ?? plain(at(ev, "data.item.source.subject")) ?? plain(at(ev, "data.item.source.body"));

const opened: EventMapping = {
  category: "workflow",
  required: ["data.item.id"],
  content: (ev) => {
    const about = subjectOf(ev);
    if (textAt(ev, "topic") === "conversation.admin.opened")
      return `Conversation ${itemId(ev)} was reopened${by(at(lastPart(ev), "author"))}${about ? `: ${about}` : "."}`;
    const via = item(ev, "source.delivered_as") ?? item(ev, "source.type");
    return `Conversation ${itemId(ev)} was started${by(at(ev, "data.item.source.author"))}${via ? ` (${via})` : ""}${about ? `: ${about}` : "."}`;
  },
  tags: (ev) => [
    "conversation",
    textAt(ev, "topic") === "conversation.admin.opened" ? "reopened" : "created",
    ...tagNames(ev),
  ],
  data: conversationData,
  // The conversation's state: open (again, when reopened) until it is closed.
  object: itemId,
  lifecycle: "state",
  validFrom: (ev) =>
    textAt(ev, "topic") === "conversation.admin.opened" ? ev.created_at : at(ev, "data.item.created_at"),
};

const isLead = (ev: Event) => item(ev, "role") === "lead" || textAt(ev, "topic") === "contact.lead.created";

/** The contact (named by its id at least) and the workspace whose user or lead it became. */
function contactFields(ev: Event) {
  return {
    subject: clip(person(at(ev, "data.item")) ?? `contact ${itemId(ev)}`, 1024),
    predicate: isLead(ev) ? "is a lead of" : "is a user of",
    object: `Intercom workspace ${textAt(ev, "app_id")!}`,
  };
}

const contactCreated: EventMapping = {
  category: "relationship",
  // The workspace (`app_id`, on every notification) is the relationship's object.
  required: ["data.item.id", "app_id"],
  content: (ev) => {
    const f = contactFields(ev);
    return `${f.subject} ${f.predicate} ${f.object}${item(ev, "location.country") ? ` (${item(ev, "location.country")})` : ""}.`;
  },
  fields: (ev) => contactFields(ev),
  tags: (ev) => ["contact", isLead(ev) ? "lead" : "user"],
  data: (ev) => ({
    contact_id: item(ev, "id"),
    external_id: item(ev, "external_id") ?? item(ev, "user_id"),
    role: item(ev, "role") ?? (isLead(ev) ? "lead" : "user"),
    email: item(ev, "email"),
    name: item(ev, "name"),
    phone: item(ev, "phone"),
    country: item(ev, "location.country"),
    app_id: textAt(ev, "app_id"),
  }),
  validFrom: (ev) => at(ev, "data.item.created_at") ?? ev.created_at,
};

export const supportChatSource = defineSource({
  id: "support_chat",
  secrets: ["SUPPORT_CHAT_CLIENT_SECRET"],
  verify: hmacScheme({
    secret: "SUPPORT_CHAT_CLIENT_SECRET",
    hash: "sha1",
    encoding: "hex",
    signatures: signatures.header("x-hub-signature", "sha1="),
    payload: payloads.body,
  }),
  handshake: (_req, body) => (textAt(body, "topic") === "ping" ? jsonReply(NOTHING_WRITTEN) : undefined),
  eventId: (ev) => ev.id,
  eventType: (ev) => ev.topic,
  mappings: {
    "conversation.user.created": opened,
    "conversation.admin.opened": opened,
    "conversation.admin.closed": {
      category: "outcome",
      required: ["data.item.id"],
      content: (ev) => {
        const close = lastPart(ev);
        const about = subjectOf(ev);
        const contact = person(at(ev, "data.item.source.author"));
        const note = plain(at(close, "body"));
        return `Conversation ${itemId(ev)}${about ? ` ("${clip(about, 200)}")` : ""}${contact ? ` with ${contact}` : ""} was closed${by(at(close, "author"))}${note ? `: ${note}` : "."}`;
      },
      fields: () => ({ result: "success" }),
      tags: (ev) => ["conversation", "closed", ...tagNames(ev)],
      data: (ev) => ({
        ...conversationData(ev),
        closed_by: person(at(lastPart(ev), "author")),
        time_to_first_close: at(ev, "data.item.statistics.time_to_first_close"),
        count_reopens: at(ev, "data.item.statistics.count_reopens"),
      }),
      object: itemId,
      lifecycle: "close",
      validFrom: (ev) => at(ev, "data.item.statistics.last_close_at") ?? ev.created_at,
    },
    "contact.user.created": contactCreated,
    "contact.lead.created": contactCreated,
    "user.created": contactCreated,
  },
});
