import { createHmac, randomBytes } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Zoom's signing: `x-zm-request-timestamp` (epoch s) and `x-zm-signature: v0=<hex HMAC-SHA256 of
 * "v0:{timestamp}:{body}">`, keyed with the app's secret token.
 */
export const MEETINGS_SECRET = "zm_secret_token_Hq3vX8pL2nR7tY4wK9bD";
const OLD_SECRET = "zm_secret_token_the_one_before_rotation";

export function zoomSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

export function zoomHeaders(secret: string, now: number, body: string): Record<string, string> {
  const ts = Math.floor(now / 1000);
  return {
    "content-type": "application/json; charset=utf-8",
    "x-zm-request-timestamp": String(ts),
    "x-zm-signature": zoomSignature(secret, ts, body),
  };
}

export const meetingsSender: PlatformSender = {
  source: "meetings",
  secrets: { MEETINGS_SECRET_TOKEN: MEETINGS_SECRET },
  signsBody: true,
  staleMs: 6 * 60_000,
  sign(body: string, { now }: SignOptions): Signed {
    return { headers: zoomHeaders(MEETINGS_SECRET, now, body), body };
  },
  // Zoom sends one signature; a header sent twice arrives joined with ", ".
  signRotated(body: string, { now }: SignOptions): Signed {
    const ts = Math.floor(now / 1000);
    const headers = zoomHeaders(MEETINGS_SECRET, now, body);
    headers["x-zm-signature"] =
      `${zoomSignature(OLD_SECRET, ts, body)}, ${zoomSignature(MEETINGS_SECRET, ts, body)}`;
    return { headers, body };
  },
};

let seq = 0;
const uuid = () => `${randomBytes(16).toString("base64")}`;

export interface MeetingOptions {
  id?: string;
  uuid?: string;
  topic?: string;
  eventTs?: number;
}

function meetingObject(o: MeetingOptions) {
  return {
    id: o.id ?? "85746065432",
    uuid: o.uuid ?? uuid(),
    host_id: "z8yBXksmRoSr0NfEHs6X9w",
    topic: o.topic ?? "Q4 pipeline review",
    type: 2,
    start_time: "2026-11-20T15:00:12Z",
    timezone: "Europe/Paris",
    duration: 60,
  };
}

/** `meeting.ended`, as Zoom sends it. */
export function meetingEnded(o: MeetingOptions = {}): string {
  return JSON.stringify({
    event: "meeting.ended",
    event_ts: o.eventTs ?? 1763651000000 + ++seq,
    payload: {
      account_id: "AAAAAABBBB-CCDDEEFF",
      object: { ...meetingObject(o), end_time: "2026-11-20T16:02:40Z" },
    },
  });
}

/** `meeting.participant_joined`, as Zoom sends it (`participant: null` to leave it out). */
export function participantJoined(
  participant: Record<string, unknown> | null = {},
  o: MeetingOptions = {},
): string {
  const object: Record<string, unknown> = meetingObject(o);
  if (participant !== null) {
    object.participant = {
      user_id: "16778240",
      user_name: "Jill Chill",
      id: "iFxeBPYun6SAiWUzBcEkX",
      participant_uuid: `${randomBytes(8).toString("hex")}`,
      join_time: "2026-11-20T15:01:05Z",
      email: "jill.chill@example.com",
      participant_user_id: "iFxeBPYun6SAiWUzBcEkX",
      ...participant,
    };
  }
  return JSON.stringify({
    event: "meeting.participant_joined",
    event_ts: o.eventTs ?? 1763650865000 + ++seq,
    payload: { account_id: "AAAAAABBBB-CCDDEEFF", object },
  });
}

/** Zoom's challenge-response check: the request body exactly as Zoom documents it. */
export const URL_VALIDATION =
  '{"payload":{"plainToken":"qgg8vlvZRS6UYooatFL8Aw"},"event_ts":1654503849680,"event":"endpoint.url_validation"}';
