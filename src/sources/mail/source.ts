/**
 * `mail`: push notifications of a mailbox watch (SOURCES.md). Each delivery carries an RS256
 * OIDC token from the push service; the body only says "history moved to N for mailbox M".
 * Entries come from expanding the mailbox history (api.ts, history.ts): `map` checks the mailbox
 * and answers `expand`, and the ingest pipeline asks the mail connector (`expandsVia: "mail"`).
 */
import { errors, jwtVerify } from "jose";
import { BadRequest } from "../../errors/domain-errors.ts";
import { clip, text } from "../kit/draft.ts";
import { bearerToken, isRecord, parseJsonBody } from "../kit/request.ts";
import { safeEqual } from "../kit/signature.ts";
import type {
  MapResult,
  SourceContext,
  SourceEvent,
  SourceModule,
  VerifyResult,
  WebhookRequest,
} from "../types.ts";
import { MAIL_MESSAGE_TYPES, mapMailMessage } from "./history.ts";
import { createJwksResolver, DEFAULT_MAIL_JWKS_URL } from "./jwks.ts";

export { mapMailHistory } from "./history.ts";

const ID = "mail";
const ISSUERS = ["accounts.google.com", "https://accounts.google.com"];
const SKEW_S = 60;
const MAX_TOKEN_AGE_S = 3600;

/** The notification a push delivery carries, as kept in the event payload. */
export interface MailNotification {
  emailAddress: string;
  historyId: string;
  messageId: string;
  publishTime?: string;
  subscription?: string;
  attributes?: Record<string, string>;
}

function claimFailure(err: errors.JWTClaimValidationFailed): string {
  switch (err.claim) {
    case "iss":
      return "issuer_mismatch";
    case "aud":
      return "audience_mismatch";
    case "iat":
      return "issued_in_future";
    case "nbf":
      return "token_not_yet_valid";
    default:
      return "claim_invalid";
  }
}

/** A stable reason for a failed verification; the token itself never appears in it. */
function reasonOf(err: unknown): string {
  // jose reports an over-age token as expired on the `iat` claim.
  if (err instanceof errors.JWTExpired) return err.claim === "iat" ? "token_too_old" : "token_expired";
  if (err instanceof errors.JWTClaimValidationFailed) return claimFailure(err);
  if (err instanceof errors.JWSSignatureVerificationFailed) return "bad_signature";
  if (err instanceof errors.JWKSNoMatchingKey) return "unknown_key";
  if (err instanceof errors.JOSEAlgNotAllowed) return "algorithm_not_allowed";
  if (err instanceof errors.JWKSTimeout) return "jwks_unavailable";
  if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return "malformed_token";
  if (err instanceof errors.JOSEError) return "token_invalid";
  return "jwks_unavailable"; // network failures while fetching the keys
}

async function verify(req: WebhookRequest, ctx: SourceContext): Promise<VerifyResult> {
  const audience = ctx.secrets.MAIL_PUBSUB_AUDIENCE ?? "";
  if (!audience) return { ok: false, reason: "secret_missing" };
  const token = bearerToken(req.headers);
  if (!token) return { ok: false, reason: "missing_token" };
  const jwks = ctx.jwks ?? createJwksResolver(DEFAULT_MAIL_JWKS_URL);
  try {
    const { payload } = await jwtVerify(token, jwks.keyFor, {
      algorithms: ["RS256"],
      issuer: ISSUERS,
      audience,
      clockTolerance: SKEW_S,
      maxTokenAge: MAX_TOKEN_AGE_S,
      requiredClaims: ["exp", "iat"],
      currentDate: new Date(ctx.now()),
    });
    if (payload.email_verified !== true && payload.email_verified !== "true")
      return { ok: false, reason: "email_not_verified" };
    const account = ctx.secrets.MAIL_PUBSUB_SERVICE_ACCOUNT;
    if (account && !safeEqual(String(payload.email ?? ""), account))
      return { ok: false, reason: "service_account_mismatch" };
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: reasonOf(err) };
  }
}

function decodeData(data: unknown): Record<string, unknown> {
  if (typeof data !== "string" || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(data))
    throw new BadRequest("message.data is not base64");
  try {
    const decoded: unknown = JSON.parse(Buffer.from(data, "base64").toString("utf8"));
    if (isRecord(decoded)) return decoded;
  } catch {}
  throw new BadRequest("message.data is not base64-encoded JSON");
}

function stringAttributes(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

function parse(req: WebhookRequest): SourceEvent[] {
  const body = parseJsonBody(req.rawBody);
  if (!isRecord(body) || !isRecord(body.message))
    throw new BadRequest("body is not a push delivery: message missing");
  const message = body.message;
  // The push service sends both spellings; either identifies the message.
  const messageId = text(message.messageId) ?? text(message.message_id);
  if (!messageId) throw new BadRequest("message.messageId is missing");
  const data = decodeData(message.data);
  const emailAddress = text(data.emailAddress);
  const historyId = text(data.historyId);
  if (!emailAddress || !historyId) throw new BadRequest("message.data lacks emailAddress or historyId");
  const payload: MailNotification = {
    emailAddress,
    historyId,
    messageId,
    publishTime: text(message.publishTime) ?? text(message.publish_time),
    subscription: text(body.subscription),
    attributes: stringAttributes(message.attributes),
  };
  return [{ event_id: clip(messageId, 512), event_type: "mail.notification", payload }];
}

/**
 * The notification must be for the watched mailbox; its entries then come from expanding it. A
 * message its expansion split off (the replay of its dead letter) maps from the facts it keeps.
 */
function map(event: SourceEvent, ctx: SourceContext): MapResult {
  if (Object.hasOwn(MAIL_MESSAGE_TYPES, event.event_type)) return mapMailMessage(event);
  const payload = isRecord(event.payload) ? event.payload : {};
  const email = text(payload.emailAddress)?.toLowerCase();
  const watched = ctx.secrets.MAIL_WATCH_EMAIL?.trim().toLowerCase();
  if (!email || email !== watched) return { ok: false, reason: "mailbox_mismatch" };
  return { ok: true, drafts: [], expand: true };
}

export const mailSource: SourceModule = {
  id: ID,
  requiredSecrets: ["MAIL_PUBSUB_AUDIENCE", "MAIL_WATCH_EMAIL"],
  optionalSecrets: [
    "MAIL_PUBSUB_SERVICE_ACCOUNT",
    "MAIL_CLIENT_ID",
    "MAIL_CLIENT_SECRET",
    "MAIL_REFRESH_TOKEN",
    "MAIL_PUBSUB_TOPIC",
  ],
  verify,
  parse,
  map,
  // Notifications carry no content: the mail connector expands them through the mail API.
  expandsVia: "mail",
};
