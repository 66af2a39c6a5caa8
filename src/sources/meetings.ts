/**
 * `meetings` (modelled on Zoom): `x-zm-signature: v0=<hex HMAC-SHA256>` of
 * `v0:{x-zm-request-timestamp}:{body}`, keyed with the app's secret token, within 5 minutes.
 * Zoom's `endpoint.url_validation` challenge is signed like any other event and answered only once
 * verified: the answer is an HMAC of a token the caller chooses, which must not be handed to anyone
 * who cannot already sign. Zoom sends no delivery id: the event, the meeting instance (uuid), the
 * participant for joins and `event_ts` identify an event.
 */
import { BadRequest } from "../errors/domain-errors.ts";
import { anyOf, at, defineSource, type Event, jsonReply, textAt } from "./kit/define-source.ts";
import { clip, nameAndEmail } from "./kit/draft.ts";
import { hmacScheme, hmacSha256, payloads, signatures } from "./kit/signature.ts";

const participant = (ev: Event) => at(ev, "payload.object.participant");

const meetingId = (ev: Event) => textAt(ev, "payload.object.id");
const topic = (ev: Event) => textAt(ev, "payload.object.topic");
const host = (ev: Event) => textAt(ev, "payload.object.host_email") ?? textAt(ev, "payload.object.host_id");

/** `meeting "Weekly sync" (85746065432)`: how an agent recognises the meeting (its id is required). */
function meetingName(ev: Event): string {
  const name = topic(ev);
  return `meeting${name ? ` "${name}"` : ""} (${meetingId(ev)!})`;
}

/** Participants without a Zoom account have no user id; their session's id still tells them apart. */
const participantKey = (ev: Event) =>
  textAt(participant(ev), "participant_uuid") ??
  textAt(participant(ev), "user_id") ??
  textAt(participant(ev), "id") ??
  textAt(participant(ev), "email") ??
  textAt(participant(ev), "user_name");

/** Whoever joined: any one of these names them. */
const PARTICIPANT = anyOf(
  ...["user_name", "email", "participant_uuid", "user_id", "id"].map(
    (f) => `payload.object.participant.${f}`,
  ),
);

function participantName(ev: Event): string {
  const named = nameAndEmail(textAt(participant(ev), "user_name"), textAt(participant(ev), "email"));
  return (named ?? participantKey(ev))!;
}

function eventIdOf(ev: Event): string | undefined {
  const event = textAt(ev, "event");
  const instance = textAt(ev, "payload.object.uuid") ?? meetingId(ev);
  const stamp = textAt(ev, "event_ts");
  if (!event || !instance || !stamp) return undefined;
  const who = event.endsWith("participant_joined") ? participantKey(ev) : undefined;
  return [event, instance, who, stamp].filter((part) => part !== undefined).join(":");
}

/** Minutes between the actual start and end; Zoom's `duration` is the scheduled length. */
function minutesRun(ev: Event): number | undefined {
  const start = Date.parse(textAt(ev, "payload.object.start_time") ?? "");
  const end = Date.parse(textAt(ev, "payload.object.end_time") ?? "");
  return Number.isFinite(start) && Number.isFinite(end) && end >= start
    ? Math.round((end - start) / 60_000)
    : undefined;
}

export const meetingsSource = defineSource({
  id: "meetings",
  secrets: ["MEETINGS_SECRET_TOKEN"],
  verify: hmacScheme({
    secret: "MEETINGS_SECRET_TOKEN",
    hash: "sha256",
    encoding: "hex",
    signatures: signatures.with(signatures.header("x-zm-signature", "v0="), {
      timestamp: "x-zm-request-timestamp",
    }),
    payload: payloads.versionTimestampBody("v0"),
    timestamp: { unit: "s", toleranceMs: 5 * 60_000 },
  }),
  handshake(_req, body, ctx) {
    if (textAt(body, "event") !== "endpoint.url_validation") return undefined;
    const plainToken = textAt(body, "payload.plainToken");
    if (!plainToken) throw new BadRequest("endpoint.url_validation carries no payload.plainToken");
    const secret = ctx.secrets.MEETINGS_SECRET_TOKEN ?? "";
    return jsonReply({ plainToken, encryptedToken: hmacSha256(secret, plainToken).toString("hex") });
  },
  eventId: eventIdOf,
  eventType: (ev) => ev.event,
  mappings: {
    "meeting.ended": {
      category: "fact",
      required: ["payload.object.id"],
      content: (ev) => {
        const who = host(ev);
        const start = textAt(ev, "payload.object.start_time");
        const end = textAt(ev, "payload.object.end_time");
        const ran = minutesRun(ev);
        const when = start && end ? `; it ran from ${start} to ${end}` : end ? ` at ${end}` : "";
        return `Zoom ${meetingName(ev)}${who ? ` hosted by ${who}` : ""} ended${when}${ran === undefined ? "" : ` (${ran} min)`}.`;
      },
      tags: ["meeting", "ended"],
      data: (ev) => ({
        meeting_id: meetingId(ev),
        meeting_uuid: textAt(ev, "payload.object.uuid"),
        topic: topic(ev),
        host_id: textAt(ev, "payload.object.host_id"),
        host_email: textAt(ev, "payload.object.host_email"),
        start_time: textAt(ev, "payload.object.start_time"),
        end_time: textAt(ev, "payload.object.end_time"),
        duration_min: minutesRun(ev),
        scheduled_duration_min: at(ev, "payload.object.duration"),
        timezone: textAt(ev, "payload.object.timezone"),
        type: at(ev, "payload.object.type"),
        account_id: textAt(ev, "payload.account_id"),
      }),
      validFrom: (ev) => textAt(ev, "payload.object.end_time") ?? ev.event_ts,
    },
    "meeting.participant_joined": {
      category: "relationship",
      required: ["payload.object.id", PARTICIPANT],
      content: (ev) => {
        const joined = textAt(participant(ev), "join_time");
        return `${participantName(ev)} joined Zoom ${meetingName(ev)}${joined ? ` at ${joined}` : ""}.`;
      },
      fields: (ev) => ({
        subject: clip(participantName(ev), 1024),
        predicate: "joined meeting",
        object: clip(`Zoom ${meetingName(ev)}`, 1024),
      }),
      tags: ["meeting", "participant_joined"],
      data: (ev) => ({
        meeting_id: meetingId(ev),
        meeting_uuid: textAt(ev, "payload.object.uuid"),
        topic: topic(ev),
        host_id: textAt(ev, "payload.object.host_id"),
        participant_name: textAt(participant(ev), "user_name"),
        participant_email: textAt(participant(ev), "email"),
        participant_user_id: textAt(participant(ev), "user_id"),
        participant_uuid: textAt(participant(ev), "participant_uuid"),
        join_time: textAt(participant(ev), "join_time"),
        account_id: textAt(ev, "payload.account_id"),
      }),
      validFrom: (ev) => textAt(participant(ev), "join_time") ?? ev.event_ts,
    },
  },
});
