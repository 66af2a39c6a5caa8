/**
 * `scheduling` (modelled on Calendly): `Calendly-Webhook-Signature: t=<s>,v1=<hex>`, the hex
 * HMAC-SHA256 of `t.body` keyed with the subscription's signing key, a 3-minute window. The body is
 * `{event, created_at, created_by, payload: invitee}`. Calendly sends no event id; an invitee is
 * created and canceled once each and every no-show has its own URI, so the event name and that
 * URI identify an event and dedupe its retries.
 */
import { anyOf, at, defineSource, type Event, textAt } from "./kit/define-source.ts";
import { clip, nameAndEmail } from "./kit/draft.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

const invitee = (ev: Event, path: string) => textAt(ev, `payload.${path}`);
const meeting = (ev: Event, path: string) => textAt(ev, `payload.scheduled_event.${path}`);

/** Who booked, and when for: every mapping is about an invitee of a scheduled meeting. */
const REQUIRED = [anyOf("payload.name", "payload.email"), "payload.scheduled_event.start_time"];

const inviteeName = (ev: Event) => nameAndEmail(invitee(ev, "name"), invitee(ev, "email"))!;
const host = (ev: Event) =>
  nameAndEmail(
    textAt(ev, "payload.scheduled_event.event_memberships.0.user_name"),
    textAt(ev, "payload.scheduled_event.event_memberships.0.user_email"),
  );
/** `"Discovery Call" on 2026-11-24T15:00:00.000000Z` (`a meeting on …` when it has no name). */
const theMeeting = (ev: Event) => {
  const name = meeting(ev, "name");
  return `${name ? `"${name}"` : "a meeting"} on ${meeting(ev, "start_time")!}`;
};
const withHost = (ev: Event) => (host(ev) ? ` with ${host(ev)}` : "");

const MAX_ANSWERS = 10;
function answers(ev: Event): string[] {
  const list = at(ev, "payload.questions_and_answers");
  if (!Array.isArray(list)) return [];
  return (
    list
      .slice(0, MAX_ANSWERS)
      // A question left unanswered says nothing about the invitee.
      .map((qa) =>
        textAt(qa, "question") && textAt(qa, "answer")
          ? `${textAt(qa, "question")} ${textAt(qa, "answer")}`
          : "",
      )
      .filter(Boolean)
      .map((line) => clip(line, 500))
  );
}

const inviteeData = (ev: Event) => ({
  invitee: invitee(ev, "uri"),
  name: invitee(ev, "name"),
  email: invitee(ev, "email"),
  status: invitee(ev, "status"),
  timezone: invitee(ev, "timezone"),
  event: meeting(ev, "uri"),
  event_name: meeting(ev, "name"),
  event_type: meeting(ev, "event_type"),
  start_time: meeting(ev, "start_time"),
  end_time: meeting(ev, "end_time"),
  host: host(ev),
  location:
    meeting(ev, "location.join_url") ?? meeting(ev, "location.location") ?? meeting(ev, "location.type"),
  rescheduled: at(ev, "payload.rescheduled"),
  old_invitee: invitee(ev, "old_invitee"),
  new_invitee: invitee(ev, "new_invitee"),
  answers: answers(ev),
  utm_source: invitee(ev, "tracking.utm_source"),
  utm_campaign: invitee(ev, "tracking.utm_campaign"),
});

/** The booking an event is about: its invitee's URI. */
const booking = (ev: Event) => textAt(ev, "payload.uri");

export const schedulingSource = defineSource({
  id: "scheduling",
  secrets: ["SCHEDULING_SIGNING_KEY"],
  verify: hmacScheme({
    secret: "SCHEDULING_SIGNING_KEY",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.keyValueList("calendly-webhook-signature", { signature: "v1", timestamp: "t" }),
    payload: payloads.timestampDotBody,
    timestamp: { unit: "s", toleranceMs: 3 * 60_000 },
  }),
  eventId: (ev) => {
    const uri = textAt(ev, "payload.no_show.uri") ?? textAt(ev, "payload.uri");
    return uri ? `${textAt(ev, "event") ?? "unknown"}:${uri}` : undefined;
  },
  eventType: (ev) => ev.event,
  mappings: {
    "invitee.created": {
      category: "relationship",
      required: REQUIRED,
      content: (ev) => {
        const qa = answers(ev);
        const where = meeting(ev, "location.join_url") ?? meeting(ev, "location.location");
        return `${inviteeName(ev)} booked ${theMeeting(ev)}${withHost(ev)}${meeting(ev, "end_time") ? ` until ${meeting(ev, "end_time")}` : ""}${where ? ` at ${where}` : ""}${invitee(ev, "old_invitee") ? " (rescheduled from an earlier booking)" : ""}.${qa.length ? `\n\n${qa.join("\n")}` : ""}`;
      },
      fields: (ev) => ({
        subject: inviteeName(ev),
        predicate: "booked",
        object: clip(theMeeting(ev), 1024),
      }),
      tags: (ev) => [
        "booking",
        "invitee",
        meeting(ev, "name"),
        invitee(ev, "old_invitee") ? "rescheduled" : undefined,
      ],
      data: inviteeData,
      // The booking (its invitee) is the lifecycle's object: canceled ends it.
      object: booking,
      lifecycle: "state",
      validFrom: (ev) => at(ev, "payload.created_at") ?? ev.created_at,
    },
    "invitee.canceled": {
      category: "exception",
      required: REQUIRED,
      content: (ev) => {
        const by = textAt(ev, "payload.cancellation.canceled_by");
        const role = textAt(ev, "payload.cancellation.canceler_type");
        const reason = textAt(ev, "payload.cancellation.reason");
        const rescheduled = at(ev, "payload.rescheduled") === true;
        return `${inviteeName(ev)}'s booking of ${theMeeting(ev)}${withHost(ev)} was ${rescheduled ? "canceled to be rescheduled" : "canceled"}${by ? ` by ${by}${role ? ` (${role})` : ""}` : ""}${reason ? `: ${reason}` : " (no reason given)"}.`;
      },
      // A rescheduled meeting still takes place: only the slot was lost.
      fields: (ev) => ({
        severity: at(ev, "payload.rescheduled") === true ? "low" : "medium",
        status: "open",
      }),
      tags: (ev) => [
        "booking",
        "canceled",
        meeting(ev, "name"),
        at(ev, "payload.rescheduled") === true ? "rescheduled" : undefined,
      ],
      data: (ev) => ({
        ...inviteeData(ev),
        canceled_by: textAt(ev, "payload.cancellation.canceled_by"),
        canceler_type: textAt(ev, "payload.cancellation.canceler_type"),
        reason: textAt(ev, "payload.cancellation.reason"),
      }),
      // Still an exception (SOURCES.md), and the booking's end.
      object: booking,
      lifecycle: "close",
      validFrom: (ev) =>
        at(ev, "payload.cancellation.created_at") ?? at(ev, "payload.updated_at") ?? ev.created_at,
    },
    "invitee_no_show.created": {
      category: "exception",
      required: REQUIRED,
      content: (ev) => `${inviteeName(ev)} did not show up to ${theMeeting(ev)}${withHost(ev)}.`,
      fields: () => ({ severity: "medium", status: "open" }),
      tags: (ev) => ["booking", "no_show", meeting(ev, "name")],
      data: (ev) => ({ ...inviteeData(ev), no_show: invitee(ev, "no_show.uri") }),
      object: booking,
      validFrom: (ev) => at(ev, "payload.no_show.created_at") ?? ev.created_at,
    },
  },
});
