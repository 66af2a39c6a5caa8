import type { PlatformSender, Signed } from "./sender.ts";

/**
 * Google Calendar push channels: a notification is a POST whose facts are `X-Goog-*` headers, with
 * the channel's token in `X-Goog-Channel-Token` (no signature), usually with no body.
 *
 * Since the facts travel in headers, a test describes a notification as JSON
 * `{headers: {X-Goog-…}, event?: {…}}` (see `googleNotification`), and `sign` turns that into the
 * request Google makes: those headers plus the token, and the event (if any) as the JSON body.
 */
export const CALENDAR_TOKEN = "target=memory-runtime-calendar-7d1e3a";
export const CHANNEL_ID = "01234567-89ab-cdef-0123-456789abcdef";
const RESOURCE_ID = "o3hgv1538sdjfh";
const CALENDAR = "ops@example.com";
export const RESOURCE_URI = `https://www.googleapis.com/calendar/v3/calendars/${encodeURIComponent(CALENDAR)}/events?alt=json`;

interface Description {
  headers: Record<string, string>;
  event?: Record<string, unknown>;
}

export const calendarSender: PlatformSender = {
  source: "calendar",
  secrets: { CALENDAR_CHANNEL_TOKEN: CALENDAR_TOKEN },
  signsBody: false,
  /** Hostile bytes as the body of an `exists` notification of the channel. */
  signRaw(body: Uint8Array): Signed {
    const headers = JSON.parse(googleNotification({ state: "exists" })).headers as Record<string, string>;
    return {
      headers: { ...headers, "x-goog-channel-token": CALENDAR_TOKEN, "content-type": "application/json" },
      body,
    };
  },
  sign(description: string): Signed {
    const { headers, event } = JSON.parse(description) as Description;
    const withToken = { ...headers, "x-goog-channel-token": CALENDAR_TOKEN };
    if (!event) return { headers: withToken, body: "" };
    return {
      headers: { ...withToken, "content-type": "application/json; charset=UTF-8" },
      body: JSON.stringify(event),
    };
  },
};

let messageNumber = 1;

/** A notification of one channel; a fresh message number per call unless given. */
export function googleNotification(opts: {
  state: "sync" | "exists" | "not_exists" | string;
  event?: Record<string, unknown>;
  channelId?: string;
  messageNumber?: number;
  /** A notification naming no resource (neither URI nor id), which no real channel sends. */
  noResource?: boolean;
}): string {
  const headers: Record<string, string> = {
    "x-goog-channel-id": opts.channelId ?? CHANNEL_ID,
    "x-goog-channel-expiration": "Tue, 24 Nov 2026 10:00:00 GMT",
    "x-goog-message-number": String(opts.messageNumber ?? ++messageNumber),
    "x-goog-resource-state": opts.state,
  };
  if (!opts.noResource) {
    headers["x-goog-resource-id"] = RESOURCE_ID;
    headers["x-goog-resource-uri"] = RESOURCE_URI;
  }
  return JSON.stringify({ headers, ...(opts.event ? { event: opts.event } : {}) });
}

/** A Calendar Events resource as the API returns it. */
export function calendarEvent(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: "calendar#event",
    etag: '"3181161784712000"',
    id: "4eahs9ghkhrvkld72hogu9ph3e",
    status: "confirmed",
    htmlLink:
      "https://www.google.com/calendar/event?eid=NGVhaHM5Z2hraHJ2a2xkNzJob2d1OXBoM2Ugb3BzQGV4YW1wbGUuY29t",
    created: "2026-11-21T09:00:00.000Z",
    updated: "2026-11-21T09:00:00.412Z",
    summary: "Quarterly review",
    organizer: { email: CALENDAR, self: true },
    start: { dateTime: "2026-11-24T10:00:00+01:00", timeZone: "Europe/Paris" },
    end: { dateTime: "2026-11-24T11:00:00+01:00", timeZone: "Europe/Paris" },
    attendees: [
      { email: "ada@example.com", responseStatus: "accepted" },
      { email: CALENDAR, organizer: true },
    ],
    ...fields,
  };
}
