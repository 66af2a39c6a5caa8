/**
 * `helpdesk` (modelled on Zendesk event-subscribed webhooks): `X-Zendesk-Webhook-Signature`, the
 * base64 HMAC-SHA256 of `X-Zendesk-Webhook-Signature-Timestamp` (RFC 3339) followed by the raw body,
 * keyed with the webhook's signing secret; a 5-minute window. The body is one event `{type:
 * "zen:event-type:…", id, time, subject, detail: ticket, event: change}`; its `id` dedupes. A status
 * change to solved and a priority change to urgent are told apart from their siblings by the type,
 * as the table covers only those.
 */
import { at, defineSource, type Event, freeText, textAt } from "./kit/define-source.ts";
import { excerpt } from "./kit/draft.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const PREFIX = "zen:event-type:";
const SOLVED = `${PREFIX}ticket.status_changed:solved`;
const URGENT = `${PREFIX}ticket.priority_changed:urgent`;

const lower = (value: unknown) => (typeof value === "string" ? value.trim().toLowerCase() : undefined);

/** The event type, with the two changes the table covers refined by the value changed to. */
function typeOf(ev: Event): string | undefined {
  const type = textAt(ev, "type");
  const current = lower(at(ev, "event.current"));
  if (type === `${PREFIX}ticket.status_changed` && current === "solved") return SOLVED;
  if (type === `${PREFIX}ticket.priority_changed` && current === "urgent") return URGENT;
  return type;
}

const ticket = (ev: Event, path: string) => textAt(ev, `detail.${path}`);
/** The ticket id (`detail.id`), which every mapping requires. */
const ticketId = (ev: Event) => ticket(ev, "id")!;
/** The ticket every event is about: its lifecycle's object. */
const ticketObject = (ev: Event) => `ticket:${ticketId(ev)}`;
const title = (ev: Event) => {
  const subject = ticket(ev, "subject");
  return `ticket #${ticketId(ev)}${subject ? ` "${subject}"` : ""}`;
};
const previous = (ev: Event) => lower(at(ev, "event.previous"));

/** What the ticket is about, in the requester's words (a short excerpt of its description). */
const about = (ev: Event) => {
  const said = excerpt(at(ev, "detail.description"), 200);
  return said ? `\n\n${said}` : "";
};

const ticketData = (ev: Event) => ({
  ticket_id: ticket(ev, "id"),
  subject: ticket(ev, "subject"),
  description: excerpt(at(ev, "detail.description"), 500),
  status: lower(at(ev, "detail.status")),
  priority: lower(at(ev, "detail.priority")),
  type: lower(at(ev, "detail.type")),
  requester_id: ticket(ev, "requester_id"),
  assignee_id: ticket(ev, "assignee_id"),
  group_id: ticket(ev, "group_id"),
  organization_id: ticket(ev, "organization_id"),
  actor_id: ticket(ev, "actor_id"),
  via: ticket(ev, "via.channel"),
  tags: at(ev, "detail.tags"),
  account_id: textAt(ev, "account_id"),
});
const ticketTags = (ev: Event) => {
  const tags = at(ev, "detail.tags");
  return Array.isArray(tags) ? tags.slice(0, 20) : [];
};

export const helpdeskSource = defineSource({
  id: "helpdesk",
  secrets: ["HELPDESK_SIGNING_SECRET"],
  verify: hmacScheme({
    secret: "HELPDESK_SIGNING_SECRET",
    hash: "sha256",
    encoding: "base64",
    signatures: signatures.with(signatures.header("x-zendesk-webhook-signature"), {
      timestamp: "x-zendesk-webhook-signature-timestamp",
    }),
    payload: payloads.timestampBody,
    timestamp: { unit: "rfc3339", toleranceMs: 5 * 60_000 },
  }),
  eventId: (ev) => ev.id,
  eventType: typeOf,
  mappings: {
    [`${PREFIX}ticket.created`]: {
      category: "workflow",
      required: ["detail.id"],
      content: (ev) => {
        const what = [lower(at(ev, "detail.priority")), lower(at(ev, "detail.type"))].filter(Boolean);
        const description = excerpt(at(ev, "detail.description"), 1000);
        const requester = ticket(ev, "requester_id");
        return `Support ${title(ev)} was opened${what.length ? ` (${what.join(" ")})` : ""}${requester ? ` by requester ${requester}` : ""}${ticket(ev, "via.channel") ? ` via ${ticket(ev, "via.channel")}` : ""}${ticket(ev, "assignee_id") ? `, assigned to ${ticket(ev, "assignee_id")}` : ""}.${description ? `\n\n${description}` : ""}`;
      },
      tags: (ev) => ["ticket", "created", lower(at(ev, "detail.priority")), ...ticketTags(ev)],
      data: ticketData,
      object: ticketObject,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "detail.created_at") ?? ev.time,
    },
    [SOLVED]: {
      category: "outcome",
      required: ["detail.id"],
      content: (ev) =>
        `Support ${title(ev)} was solved${previous(ev) ? ` (was ${previous(ev)})` : ""}${ticket(ev, "assignee_id") ? ` by assignee ${ticket(ev, "assignee_id")}` : ""}.`,
      fields: () => ({ result: "success" }),
      tags: (ev) => ["ticket", "solved", ...ticketTags(ev)],
      data: (ev) => ({ ...ticketData(ev), previous_status: lower(at(ev, "event.previous")) }),
      object: ticketObject,
      lifecycle: "close",
      validFrom: (ev) => ev.time,
    },
    [URGENT]: {
      category: "exception",
      required: ["detail.id"],
      content: (ev) => {
        const status = lower(at(ev, "detail.status"));
        const assignee = ticket(ev, "assignee_id");
        return `Support ${title(ev)} was escalated to urgent priority${previous(ev) ? ` (was ${previous(ev)})` : ""}; ${status ? `status ${status}, ` : ""}${assignee ? `assignee ${assignee}` : "unassigned"}.${about(ev)}`;
      },
      fields: () => ({ severity: "critical", status: "open" }),
      tags: (ev) => ["ticket", "urgent", ...ticketTags(ev)],
      data: (ev) => ({ ...ticketData(ev), previous_priority: lower(at(ev, "event.previous")) }),
      // Of its ticket: resolved when the ticket is solved.
      object: ticketObject,
      validFrom: (ev) => ev.time,
    },
    [`${PREFIX}ticket.comment_added`]: {
      category: "fact",
      // A comment is what it says: without its body there is nothing to keep.
      required: ["detail.id", freeText("event.comment.body")],
      content: (ev) => {
        const author = textAt(ev, "event.comment.author.name") ?? textAt(ev, "event.comment.author.id");
        const staff = at(ev, "event.comment.author.is_staff") === true ? " (agent)" : "";
        const internal = at(ev, "event.comment.is_public") === false;
        const body = excerpt(String(at(ev, "event.comment.body")), 4000);
        const added = author
          ? `${author}${staff} added ${internal ? "an internal note" : "a public comment"} to`
          : `${internal ? "An internal note" : "A public comment"} was added to`;
        return `${added} ${title(ev)}:\n\n${body}`;
      },
      tags: (ev) => [
        "ticket",
        "comment",
        at(ev, "event.comment.is_public") === false ? "internal" : "public",
        ...ticketTags(ev),
      ],
      data: (ev) => ({
        ...ticketData(ev),
        comment_id: textAt(ev, "event.comment.id"),
        author_id: textAt(ev, "event.comment.author.id"),
        author_name: textAt(ev, "event.comment.author.name"),
        author_is_staff: at(ev, "event.comment.author.is_staff"),
        is_public: at(ev, "event.comment.is_public"),
      }),
      validFrom: (ev) => ev.time,
    },
  },
});
