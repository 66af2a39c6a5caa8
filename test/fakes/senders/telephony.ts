import { createHmac, randomBytes } from "node:crypto";
import type { PlatformSender, Signed, SignOptions } from "./sender.ts";

/**
 * Twilio's signing: `X-Twilio-Signature` = base64 HMAC-SHA1, keyed with the auth token, of the URL
 * Twilio called followed by every POST parameter sorted by name, each name followed by its value.
 */
export const TELEPHONY_AUTH_TOKEN = "9f2c4e6a8b0d1f3a5c7e9b1d3f5a7c9e";
const OLD_AUTH_TOKEN = "00000000000000000000000000000000";

export function twilioSignature(authToken: string, url: string, body: string): string {
  const params = [...new URLSearchParams(body)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const mac = createHmac("sha1", authToken).update(url);
  for (const [name, value] of params) mac.update(name).update(value);
  return mac.digest("base64");
}

const FORM = "application/x-www-form-urlencoded";

export const telephonySender: PlatformSender = {
  source: "telephony",
  secrets: { TELEPHONY_AUTH_TOKEN },
  signsBody: true,
  sign(body: string, { url }: SignOptions): Signed {
    return {
      headers: {
        "content-type": FORM,
        "x-twilio-signature": twilioSignature(TELEPHONY_AUTH_TOKEN, url, body),
      },
      body,
    };
  },
  /**
   * Exactly these bytes: Twilio signs the URL and the decoded form parameters, so bytes that are not
   * UTF-8 have no parameters it could sign; the URL alone is what remains.
   */
  signRaw(body: Uint8Array, { url }: SignOptions): Signed {
    let text: string | undefined;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {}
    const signature = twilioSignature(TELEPHONY_AUTH_TOKEN, url, text ?? "");
    return { headers: { "content-type": FORM, "x-twilio-signature": signature }, body };
  },
  // Twilio sends one signature; a header sent twice arrives joined with ", ".
  signRotated(body: string, { url }: SignOptions): Signed {
    const both = `${twilioSignature(OLD_AUTH_TOKEN, url, body)}, ${twilioSignature(TELEPHONY_AUTH_TOKEN, url, body)}`;
    return { headers: { "content-type": FORM, "x-twilio-signature": both }, body };
  },
};

const ACCOUNT = "AC3f8b1c2d4e5f60718293a4b5c6d7e8f9";
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

/** A form body as Twilio posts it (parameter order as Twilio sends them; the signature sorts). */
export function twilioForm(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

/** The incoming-message webhook of a Twilio number. */
export function inboundSms(body: string, extra: Record<string, string> = {}): string {
  const messageSid = sid("SM");
  return twilioForm({
    ToCountry: "US",
    ToState: "CA",
    SmsMessageSid: messageSid,
    NumMedia: "0",
    ToCity: "SAN FRANCISCO",
    FromZip: "10001",
    SmsSid: messageSid,
    FromState: "NY",
    SmsStatus: "received",
    FromCity: "NEW YORK",
    Body: body,
    FromCountry: "US",
    To: "+14155550100",
    MessagingServiceSid: "MG9752274e9e519418a7406176694466fa",
    ToZip: "94105",
    NumSegments: "1",
    MessageSid: messageSid,
    AccountSid: ACCOUNT,
    From: "+12125550123",
    ApiVersion: "2010-04-01",
    ...extra,
  });
}

/** A message status callback (`StatusCallback` of an outbound message). */
export function messageStatus(status: string, extra: Record<string, string> = {}, messageSid = sid("SM")) {
  return twilioForm({
    SmsSid: messageSid,
    SmsStatus: status,
    MessageStatus: status,
    To: "+14155550199",
    MessagingServiceSid: "MG9752274e9e519418a7406176694466fa",
    MessageSid: messageSid,
    AccountSid: ACCOUNT,
    From: "+14155550100",
    ApiVersion: "2010-04-01",
    ...extra,
  });
}

/** A voice status callback (`StatusCallback` of a call). */
export function callStatus(status: string, extra: Record<string, string> = {}): string {
  return twilioForm({
    Called: "+14155550199",
    ToState: "CA",
    CallerCountry: "US",
    Direction: "outbound-api",
    Timestamp: "Fri, 20 Nov 2026 09:58:00 +0000",
    CallbackSource: "call-progress-events",
    SequenceNumber: "3",
    CallerState: "CA",
    ToZip: "94105",
    CallSid: sid("CA"),
    To: "+14155550199",
    CallerZip: "94105",
    ToCountry: "US",
    CalledZip: "94105",
    ApiVersion: "2010-04-01",
    CalledCity: "SAN FRANCISCO",
    CallStatus: status,
    From: "+14155550100",
    AccountSid: ACCOUNT,
    CalledCountry: "US",
    CallerCity: "SAN FRANCISCO",
    Caller: "+14155550100",
    FromCountry: "US",
    ToCity: "SAN FRANCISCO",
    FromCity: "SAN FRANCISCO",
    CalledState: "CA",
    FromZip: "94105",
    FromState: "CA",
    ...extra,
  });
}
