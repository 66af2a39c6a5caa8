/**
 * `telephony` (modelled on Twilio): form-encoded webhooks signed with `X-Twilio-Signature`, the
 * base64 HMAC-SHA1 (keyed with the account's auth token) of the URL Twilio called followed by every
 * POST parameter sorted by name, each name immediately followed by its value. Behind a proxy the
 * URL is rebuilt from X-Forwarded-Proto/-Host. Twilio posts one status callback per status, so the
 * message or call SID with its status dedupes.
 */
import { anyOf, defineSource, type Event, freeText, textAt } from "./kit/define-source.ts";
import { clip, numberOf } from "./kit/draft.ts";
import { hmacScheme, payloads, signatures } from "./kit/signature.ts";

/** Legacy SMS webhooks name the message `SmsSid` and its status `SmsStatus`. */
const messageSid = (ev: Event) => textAt(ev, "MessageSid") ?? textAt(ev, "SmsSid");
const messageStatus = (ev: Event) => textAt(ev, "MessageStatus") ?? textAt(ev, "SmsStatus");

/** `message.<status>` or `call.<status>`: messages first, as only calls carry no message SID. */
function typeOf(ev: Event): string | undefined {
  const message = messageStatus(ev);
  if (messageSid(ev) && message) return `message.${message.toLowerCase()}`;
  const call = textAt(ev, "CallStatus");
  if (textAt(ev, "CallSid") && call) return `call.${call.toLowerCase()}`;
  return undefined;
}

function idOf(ev: Event): string | undefined {
  const sid = messageSid(ev) ?? textAt(ev, "CallSid");
  const type = typeOf(ev);
  return sid && type ? `${sid}:${type.slice(type.indexOf(".") + 1)}` : undefined;
}

/** What the common delivery errors mean, so an agent need not look the code up. */
const ERRORS: Readonly<Record<string, string>> = {
  "21211": "invalid 'To' phone number",
  "21408": "sending to this region is not enabled",
  "21610": "the recipient has unsubscribed (STOP)",
  "21614": "'To' is not a mobile number",
  "30001": "queue overflow",
  "30002": "account suspended",
  "30003": "unreachable destination handset",
  "30004": "message blocked",
  "30005": "unknown destination handset",
  "30006": "landline or unreachable carrier",
  "30007": "message filtered by the carrier",
  "30008": "unknown error",
};

function errorOf(ev: Event): string {
  const code = textAt(ev, "ErrorCode");
  const said = textAt(ev, "ErrorMessage") ?? (code ? ERRORS[code] : undefined);
  if (!code) return said ? ` (${said})` : "";
  return ` (error ${code}${said ? `: ${said}` : ""})`;
}

/** Both parties are required by every mapping: Twilio names them on every callback. */
/** The caller as people know them: Twilio's caller-name lookup (voice) or WhatsApp profile name. */
const callerName = (ev: Event) => textAt(ev, "CallerName") ?? textAt(ev, "ProfileName");
const parties = (ev: Event) =>
  `from ${textAt(ev, "From")!}${callerName(ev) ? ` (${callerName(ev)})` : ""} to ${textAt(ev, "To")!}`;
const MESSAGE_SID = anyOf("MessageSid", "SmsSid");

/** Voice callbacks stamp `Timestamp` in RFC 2822 (`Mon, 16 Aug 2010 03:45:01 +0000`). */
function timestampOf(ev: Event): number | undefined {
  const raw = textAt(ev, "Timestamp");
  const ms = raw ? Date.parse(raw) : Number.NaN;
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function durationText(seconds: number | undefined): string {
  if (seconds === undefined || seconds < 0) return "";
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return ` after ${m > 0 ? `${m} min ${s} s` : `${s} s`}`;
}

function failedMessage(severity: "high" | "medium") {
  return {
    category: "exception" as const,
    required: [MESSAGE_SID, anyOf("MessageStatus", "SmsStatus"), "From", "To"],
    content: (ev: Event) =>
      `Message ${messageSid(ev)!} ${parties(ev)} ${messageStatus(ev)!.toLowerCase()}${errorOf(ev)}.`,
    fields: () => ({ severity, status: "open" }),
    tags: (ev: Event) => ["sms", messageStatus(ev)?.toLowerCase(), textAt(ev, "ErrorCode")],
    data: (ev: Event) => ({
      message_sid: messageSid(ev),
      status: messageStatus(ev),
      error_code: textAt(ev, "ErrorCode"),
      error_message: textAt(ev, "ErrorMessage") ?? ERRORS[textAt(ev, "ErrorCode") ?? ""],
      from: textAt(ev, "From"),
      caller_name: callerName(ev),
      to: textAt(ev, "To"),
      messaging_service_sid: textAt(ev, "MessagingServiceSid"),
      account_sid: textAt(ev, "AccountSid"),
    }),
  };
}

export const telephonySource = defineSource({
  id: "telephony",
  secrets: ["TELEPHONY_AUTH_TOKEN"],
  verify: hmacScheme({
    secret: "TELEPHONY_AUTH_TOKEN",
    hash: "sha1",
    encoding: "base64",
    signatures: signatures.header("x-twilio-signature"),
    payload: payloads.urlAndSortedForm,
  }),
  body: "form",
  eventId: idOf,
  eventType: typeOf,
  mappings: {
    "message.received": {
      category: "fact",
      // An MMS may carry media only (its Body sent empty): then its media is what it says.
      required: [MESSAGE_SID, "From", "To", freeText("Body", "MediaUrl0")],
      content: (ev) => {
        const body = typeof ev.Body === "string" ? ev.Body.trim() : "";
        const media = numberOf(ev.NumMedia) ?? 0;
        const attached = media > 0 ? ` with ${media} media attachment${media === 1 ? "" : "s"}` : "";
        const said = body ? `: ${clip(body, 4096)}` : "";
        return `Inbound SMS ${parties(ev)}${attached}${said}`;
      },
      tags: ["sms", "inbound"],
      data: (ev) => ({
        message_sid: messageSid(ev),
        from: textAt(ev, "From"),
        caller_name: callerName(ev),
        to: textAt(ev, "To"),
        from_city: textAt(ev, "FromCity"),
        from_country: textAt(ev, "FromCountry"),
        num_media: numberOf(ev.NumMedia),
        media_url: textAt(ev, "MediaUrl0"),
        num_segments: numberOf(ev.NumSegments),
        messaging_service_sid: textAt(ev, "MessagingServiceSid"),
        account_sid: textAt(ev, "AccountSid"),
      }),
    },
    "message.failed": failedMessage("high"),
    "message.undelivered": failedMessage("medium"),
    "call.completed": {
      category: "outcome",
      required: ["CallSid", "From", "To"],
      content: (ev) => {
        const direction = textAt(ev, "Direction");
        const answered = textAt(ev, "AnsweredBy");
        return `Call ${textAt(ev, "CallSid")!} ${parties(ev)}${direction ? ` (${direction})` : ""} completed${durationText(numberOf(ev.CallDuration))}${answered ? `, answered by ${answered}` : ""}.`;
      },
      fields: () => ({ result: "success" }),
      tags: ["call", "completed"],
      data: (ev) => ({
        call_sid: textAt(ev, "CallSid"),
        from: textAt(ev, "From"),
        caller_name: callerName(ev),
        to: textAt(ev, "To"),
        direction: textAt(ev, "Direction"),
        duration_s: numberOf(ev.CallDuration),
        answered_by: textAt(ev, "AnsweredBy"),
        recording_url: textAt(ev, "RecordingUrl"),
        parent_call_sid: textAt(ev, "ParentCallSid"),
        account_sid: textAt(ev, "AccountSid"),
      }),
      object: (ev) => textAt(ev, "CallSid"),
      validFrom: timestampOf,
    },
  },
});
