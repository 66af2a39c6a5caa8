/**
 * Forwarded answers of any size (docs/cluster.md, "Request forwarding"): an answer over one NATS
 * message (`max_payload`) goes back to the request's reply subject as consecutive messages — a
 * header part (status, headers, part count, no body), then the body in parts under the limit — and
 * the forwarding node collects them on the request's reply subject (its token under the
 * connection's one reply subscription, reply-inbox.ts) until the count is reached or its timeout
 * is over. NATS keeps the order of one connection's messages to one subscriber; each part
 * still carries its index, so a lost or reordered part is an incomplete answer, never a wrong body.
 */
import { type Msg, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { concatBytes } from "../runtime/bytes.ts";
import type { EncodedMessage, ReceivedAnswer } from "./forward-codec.ts";
import { ReplyInbox, type ReplySlot } from "./reply-inbox.ts";

/** On the header part: how many body parts follow. */
const PARTS = "mr-parts";
/** On a body part: its index, from 0. */
const PART = "mr-part";

/** Room left in a message for its headers (status, the answer's headers as JSON). */
export const HEADER_ROOM = 64 * 1024;

/** The answer as the messages that carry it: itself when it fits one message, else a header part and body parts. */
export function inParts(answer: EncodedMessage, maxPayload: number): EncodedMessage[] {
  const partSize = maxPayload - HEADER_ROOM;
  if (answer.payload.length <= partSize) return [answer];
  const count = Math.ceil(answer.payload.length / partSize);
  const head = natsHeaders();
  for (const name of answer.headers.keys())
    for (const value of answer.headers.values(name)) head.append(name, value);
  head.set(PARTS, String(count));
  const parts: EncodedMessage[] = [{ headers: head, payload: new Uint8Array() }];
  for (let index = 0; index < count; index++) {
    const h = natsHeaders();
    h.set(PART, String(index));
    parts.push({ headers: h, payload: answer.payload.subarray(index * partSize, (index + 1) * partSize) });
  }
  return parts;
}

/**
 * Sends the request with a reply subject of its own (a token under the connection's reply inbox,
 * reply-inbox.ts) and collects the answer's messages; undefined when nobody listens on `subject`,
 * the answer is not whole within `timeoutMs`, or the connection closes meanwhile. Each event on
 * `activity` (the owner pulling a part of the request's body) starts the timeout again.
 */
export function requestInParts(
  nc: NatsConnection,
  subject: string,
  request: EncodedMessage,
  timeoutMs: number,
  activity?: EventTarget,
): Promise<ReceivedAnswer | undefined> {
  return new Promise((resolve) => {
    const received: Msg[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reply: ReplySlot | undefined;
    const restart = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(undefined), timeoutMs);
    };
    const finish = (answer: ReceivedAnswer | undefined) => {
      clearTimeout(timer);
      activity?.removeEventListener("pull", restart);
      reply?.close();
      resolve(answer);
    };
    try {
      reply = ReplyInbox.of(nc).open({
        message: (msg) => {
          // A status message (503: no responders) is no answer: the caller looks for the owner again.
          if (msg.headers?.hasError) return finish(undefined);
          received.push(msg);
          const outcome = assembled(received);
          if (outcome !== "incomplete") finish(outcome);
        },
        // The connection closed: no answer, as a timeout (at once).
        lost: () => finish(undefined),
      });
      timer = setTimeout(() => finish(undefined), timeoutMs);
      activity?.addEventListener("pull", restart);
      nc.publish(subject, request.payload, { headers: request.headers, reply: reply.subject });
    } catch {
      // A closed connection or a request over the limit: no answer, as a timeout.
      finish(undefined);
    }
  });
}

/** The whole answer once every part is in, undefined when a part came out of order. */
function assembled(received: Msg[]): ReceivedAnswer | undefined | "incomplete" {
  const [head, ...body] = received;
  const count = Number(head!.headers?.get(PARTS) || "0");
  if (count === 0) return { headers: head!.headers, data: head!.data };
  const last = body.length - 1;
  if (last >= 0 && body[last]!.headers?.get(PART) !== String(last)) return undefined;
  if (body.length < count) return "incomplete";
  return { headers: head!.headers, data: concatBytes(body.map((part) => part.data)) };
}
