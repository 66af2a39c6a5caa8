/**
 * HTTP requests and responses as NATS messages (request/reply between nodes): method, path and
 * headers in NATS headers, the body as the raw payload, so the owner's answer comes back with the
 * same status, headers and body.
 */
import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";

const METHOD = "mr-method";
/** The URL as the receiving node got it: URL-signing webhook sources verify the exact URL. */
const URL_HEADER = "mr-url";
const HEADERS = "mr-headers";
const STATUS = "mr-status";
/** Set on a reply when the node asked no longer owns the partition (a move in progress). */
export const NOT_OWNER = "mr-not-owner";
/**
 * When the forwarding node stops waiting for the answer (wall-clock ms): a request the owner gets
 * after it (held by a slow or frozen NATS server) is not run, since its client was already told
 * 503; so that answer does not hide a write applied later. Nodes' clocks are assumed to agree to
 * well within the forward timeout (NTP).
 */
const DEADLINE = "mr-deadline";

/** Marks a request to forward with the moment its sender gives up on it. */
export function setDeadline(message: EncodedMessage, deadline: number): EncodedMessage {
  message.headers.set(DEADLINE, String(deadline));
  return message;
}

/** Whether a forwarded request arrived after its sender gave up on it. */
export function pastDeadline(msg: { headers?: MsgHdrs }, now: number): boolean {
  const deadline = Number(msg.headers?.get(DEADLINE) || Number.NaN);
  return Number.isFinite(deadline) && now > deadline;
}

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), or that the body recomputes. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "content-length",
]);

export interface EncodedMessage {
  headers: MsgHdrs;
  payload: Uint8Array;
}

/**
 * The request as a message; `trace` (the forwarding span's `traceparent`, `tracestate`) replaces
 * the client's, so the owner's spans are children of the hop.
 */
export function encodeRequest(
  request: Request,
  body: Uint8Array,
  trace: Record<string, string> = {},
): EncodedMessage {
  const h = natsHeaders();
  h.set(METHOD, request.method);
  h.set(URL_HEADER, request.url);
  const pairs = headerPairs(request.headers).filter(([name]) => !(name in trace));
  h.set(HEADERS, JSON.stringify([...pairs, ...Object.entries(trace)]));
  return { headers: h, payload: body };
}

/**
 * Rebuilds the request on the owner, with the URL the receiving node was called with; its body is
 * the message's payload, or `body` when it comes in parts (forward-body.ts), with the length the
 * client declared (`declaredLength`) so the app refuses an oversize body as it would locally.
 */
export function decodeRequest(
  msg: { data: Uint8Array; headers?: MsgHdrs },
  body?: ReadableStream<Uint8Array>,
  declaredLength?: string,
): Request {
  const method = msg.headers?.get(METHOD) || "GET";
  const pairs = JSON.parse(msg.headers?.get(HEADERS) || "[]") as Array<[string, string]>;
  if (body && declaredLength) pairs.push(["content-length", declaredLength]);
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(msg.headers?.get(URL_HEADER) || "http://cluster.internal/", {
    method,
    headers: pairs,
    body: hasBody ? (body ?? msg.data) : undefined,
  });
}

export async function encodeResponse(response: Response): Promise<EncodedMessage> {
  const h = natsHeaders();
  h.set(STATUS, String(response.status));
  h.set(HEADERS, JSON.stringify(headerPairs(response.headers)));
  return { headers: h, payload: new Uint8Array(await response.arrayBuffer()) };
}

export function notOwnerReply(): EncodedMessage {
  const h = natsHeaders();
  h.set(NOT_OWNER, "1");
  return { headers: h, payload: new Uint8Array() };
}

/** A received answer: its (first) message's headers and its whole body. */
export interface ReceivedAnswer {
  headers?: MsgHdrs;
  data: Uint8Array;
}

export function isNotOwner(msg: ReceivedAnswer): boolean {
  return msg.headers?.get(NOT_OWNER) === "1";
}

export function decodeResponse(msg: ReceivedAnswer): Response {
  const status = Number(msg.headers?.get(STATUS) || "502");
  const pairs = JSON.parse(msg.headers?.get(HEADERS) || "[]") as Array<[string, string]>;
  const noBody = status === 204 || status === 304;
  return new Response(noBody ? null : msg.data, { status, headers: pairs });
}

function headerPairs(headers: Headers): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== "set-cookie") pairs.push([name, value]);
  });
  // Set-Cookie is the one header that must not be folded into one line.
  for (const cookie of headers.getSetCookie()) pairs.push(["set-cookie", cookie]);
  return pairs;
}
