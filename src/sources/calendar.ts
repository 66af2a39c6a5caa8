/**
 * `calendar` (Google Calendar push channels): Google signs nothing; the channel's token, set when
 * the channel was opened, comes back in `X-Goog-Channel-Token` and must equal the tenant's. A
 * notification is its `X-Goog-*` headers and usually no body (a JSON Events resource when present);
 * the first one of a channel (`X-Goog-Resource-State: sync`) is answered 200 with nothing written.
 * Channel id + message number (increasing per channel) dedupe.
 */
import {
  anyOf,
  at,
  defineSource,
  type Event,
  jsonReply,
  NOTHING_WRITTEN,
  textAt,
} from "./kit/define-source.ts";
import { excerpt, isoFrom, nameAndEmail } from "./kit/draft.ts";
import { firstHeader, isRecord } from "./kit/request.ts";
import { tokenScheme } from "./kit/signature.ts";

/** The notification's facts, from its headers (the token is left out: it is the credential). */
function notificationOf(headers: Headers, body: unknown): Event {
  return {
    channel_id: firstHeader(headers, "x-goog-channel-id"),
    message_number: firstHeader(headers, "x-goog-message-number"),
    resource_id: firstHeader(headers, "x-goog-resource-id"),
    resource_uri: firstHeader(headers, "x-goog-resource-uri"),
    resource_state: firstHeader(headers, "x-goog-resource-state"),
    changed: firstHeader(headers, "x-goog-changed"),
    channel_expiration: firstHeader(headers, "x-goog-channel-expiration"),
    // Only an object can be an Events resource; anything else is not kept as one.
    ...(isRecord(body) ? { event: body } : {}),
  };
}

/** `exists` (created or updated), `cancelled` (an event resource saying so), `not_exists`, `sync`. */
function typeOf(ev: Event): string | undefined {
  const state = textAt(ev, "resource_state");
  return state === "exists" && textAt(ev, "event.status") === "cancelled" ? "cancelled" : state;
}

/** The calendar a resource URI names (`…/calendars/{id}/events?…`), decoded. */
function calendarOf(ev: Event): string | undefined {
  const id = /\/calendars\/([^/?#]+)/.exec(textAt(ev, "resource_uri") ?? "")?.[1];
  if (!id) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

const whenOf = (ev: Event, edge: "start" | "end") =>
  textAt(ev, `event.${edge}.dateTime`) ?? textAt(ev, `event.${edge}.date`);
/** ` "Quarterly review"` (the event's title, else its id), or nothing. */
const title = (ev: Event) => {
  const name = textAt(ev, "event.summary") ?? textAt(ev, "event.id");
  return name ? ` "${name}"` : "";
};
/** What a bodiless notification is about: its channel and the watched collection (X-Goog-* headers). */
const WATCHED = ["channel_id", anyOf("resource_uri", "resource_id")];
const resource = (ev: Event) => (textAt(ev, "resource_uri") ?? textAt(ev, "resource_id"))!;
const span = (ev: Event) => {
  const start = whenOf(ev, "start");
  const end = whenOf(ev, "end");
  return start ? ` ${start}${end ? ` to ${end}` : ""}` : "";
};
const link = (ev: Event) => (textAt(ev, "event.htmlLink") ? ` ${textAt(ev, "event.htmlLink")}` : "");
/** Google keeps no change type: an event whose `updated` is within seconds of its `created` is new. */
const verb = (ev: Event) => {
  const created = Date.parse(isoFrom(at(ev, "event.created")) ?? "");
  const updated = Date.parse(isoFrom(at(ev, "event.updated")) ?? "");
  return Math.abs(updated - created) < 2000 ? "created" : "updated";
};
const where = (ev: Event) => {
  const calendar = calendarOf(ev);
  return calendar ? ` in calendar ${calendar}` : "";
};

/** A person of the event as people know them: `Name <email>`, or whichever is given. */
const person = (p: unknown) => nameAndEmail(textAt(p, "displayName"), textAt(p, "email"));
const attendees = (ev: Event) => {
  const list = at(ev, "event.attendees");
  return Array.isArray(list)
    ? list
        .filter((a) => !at(a, "organizer"))
        .map(person)
        .filter((p) => p !== undefined)
        .slice(0, 20)
    : [];
};
/** `, organised by …, with …, at …` and the description, as far as the event gives them. */
const who = (ev: Event) => {
  const organizer = person(at(ev, "event.organizer"));
  const guests = attendees(ev);
  const place = textAt(ev, "event.location");
  return `${organizer ? `, organised by ${organizer}` : ""}${guests.length ? `, with ${guests.join(", ")}` : ""}${place ? `, at ${place}` : ""}`;
};
const described = (ev: Event) => {
  const said = excerpt(at(ev, "event.description"), 500);
  return said ? `\n\n${said}` : "";
};

const data = (ev: Event) => ({
  event_id: textAt(ev, "event.id"),
  status: textAt(ev, "event.status"),
  summary: textAt(ev, "event.summary"),
  start: whenOf(ev, "start"),
  end: whenOf(ev, "end"),
  html_link: textAt(ev, "event.htmlLink"),
  organizer: textAt(ev, "event.organizer.email"),
  organizer_name: textAt(ev, "event.organizer.displayName"),
  attendees: Array.isArray(at(ev, "event.attendees"))
    ? (at(ev, "event.attendees") as unknown[]).length
    : undefined,
  attendee_names: attendees(ev),
  location: textAt(ev, "event.location"),
  description: excerpt(at(ev, "event.description"), 500),
  calendar: calendarOf(ev),
  channel_id: textAt(ev, "channel_id"),
  message_number: textAt(ev, "message_number"),
  resource_id: textAt(ev, "resource_id"),
  resource_uri: textAt(ev, "resource_uri"),
  changed: textAt(ev, "changed"),
  channel_expiration: textAt(ev, "channel_expiration"),
});

/** The calendar event a notification is about, when its body names one. */
const eventObject = (ev: Event) => textAt(ev, "event.id");

export const calendarSource = defineSource({
  id: "calendar",
  secrets: ["CALENDAR_CHANNEL_TOKEN"],
  verify: tokenScheme({ secret: "CALENDAR_CHANNEL_TOKEN", header: "x-goog-channel-token" }),
  body: "optional-json",
  events: (body, req) => [notificationOf(req.headers, body)],
  handshake: (req) =>
    firstHeader(req.headers, "x-goog-resource-state") === "sync" ? jsonReply(NOTHING_WRITTEN) : undefined,
  eventId: (ev) => {
    const channel = textAt(ev, "channel_id");
    const number = textAt(ev, "message_number");
    return channel && number ? `${channel}:${number}` : undefined;
  },
  eventType: typeOf,
  mappings: {
    exists: {
      category: "workflow",
      required: WATCHED,
      content: (ev) => {
        if (isRecord(ev.event))
          return `Calendar event${title(ev)}${span(ev)} was ${verb(ev)}${where(ev)} (${textAt(ev, "event.status") ?? "confirmed"})${who(ev)}.${link(ev)}${described(ev)}`;
        // Without a body Google says only that the watched collection changed: what changed is
        // found by syncing it.
        const number = textAt(ev, "message_number");
        return `Events changed${where(ev)}: ${number ? `notification ${number}` : "a notification"} of channel ${textAt(ev, "channel_id")!}; sync ${resource(ev)} to see which.`;
      },
      tags: (ev) => [isRecord(ev.event) ? `event_${verb(ev)}` : "changed"],
      data,
      // The calendar event's state (a bare collection notification names none).
      object: eventObject,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "event.updated"),
    },
    cancelled: {
      category: "exception",
      // Only an Events resource says an event was cancelled: it names the event.
      required: [anyOf("event.summary", "event.id")],
      content: (ev) =>
        `Calendar event${title(ev)}${span(ev)} was cancelled${where(ev)}${who(ev)}.${link(ev)}`,
      fields: () => ({ severity: "medium", status: "open" }),
      tags: ["event_cancelled"],
      data,
      // Still an exception (SOURCES.md), and the calendar event's end.
      object: eventObject,
      lifecycle: "close",
      validFrom: (ev) => at(ev, "event.updated"),
    },
    not_exists: {
      category: "exception",
      required: WATCHED,
      content: (ev) =>
        isRecord(ev.event)
          ? `Calendar event${title(ev)}${span(ev)} no longer exists${where(ev)}.${link(ev)}`
          : `${resource(ev)} no longer exists: channel ${textAt(ev, "channel_id")!} sends nothing more about it.`,
      // The watched resource gone means no more notifications for it: worse than one cancellation.
      fields: (ev) => ({ severity: isRecord(ev.event) ? "medium" : "high", status: "open" }),
      tags: ["not_exists"],
      data,
      object: eventObject,
      lifecycle: "close",
      validFrom: (ev) => at(ev, "event.updated"),
    },
  },
});
