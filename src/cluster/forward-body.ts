/**
 * Forwarded request bodies of any size (docs/cluster.md, "Request forwarding"). A body that fits
 * one NATS message travels in the request message itself. A larger one stays on the forwarding
 * node, read from the client on demand: the request message (the header part) names a subject of
 * the forwarding node's, and the owner's app reads the body as a stream whose every read pulls the
 * next part from that subject (request/reply, the part's index on both), so the client's upload,
 * NATS and the owner move at the pace the owner's app reads. Nothing holds the whole body but the
 * app itself (which holds what it would hold for a local request, within its own limits), so the
 * owner's 413 is the app's own, for the same reasons as on the owner.
 *
 * Order, loss and timeouts: parts are pulled one at a time and each answer must carry the index
 * asked for; a wrong index or a part the forwarding node could not read is a 400, a part not
 * answered within the timeout (the forwarding node stalled or died) a 503. The owner answers that
 * instead of whatever its app made of the broken stream.
 */
import {
  createInbox,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from "@nats-io/transport-node";
import { type AppError, BadRequest, Unavailable } from "../errors/domain-errors.ts";

/** On the request message: the subject the body's parts are pulled from. */
export const BODY_SUBJECT = "mr-body";
/** On the request message: the Content-Length the client declared, if any. */
export const BODY_LENGTH = "mr-length";
/** On a pull and on its answer: the part's index, from 0. */
const PART = "mr-part";
/** On a part's answer: the body ends with this part. */
const LAST = "mr-last";
/** On a pull's answer instead of a part: why the forwarding node has no such part to give. */
const PART_ERROR = "mr-part-error";

/** A request body read from the client in parts of `partSize` bytes, one part ahead at most. */
export class BodyParts {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private ended = false;
  /** The first part, read to find out whether the body fits one message. */
  private head?: { data: Uint8Array; last: boolean };
  /** Parts handed out so far (the next one's index). */
  private handed = 0;

  private constructor(
    private readonly reader: Pick<ReadableStreamDefaultReader<Uint8Array>, "read" | "cancel">,
    readonly partSize: number,
  ) {}

  /**
   * The body whole when it fits one part (`whole`), else its parts, the first already read. A
   * declared length within one part is read at once (the common case).
   */
  static async of(request: Request, partSize: number): Promise<{ whole: Uint8Array } | { parts: BodyParts }> {
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    if (!request.body || declared <= partSize) return { whole: new Uint8Array(await request.arrayBuffer()) };
    const parts = new BodyParts(request.body.getReader(), partSize);
    parts.head = await parts.read();
    return parts.head.last ? { whole: parts.head.data } : { parts };
  }

  /** Whether any part left this node: the body can no longer be sent again from its start. */
  get started(): boolean {
    return this.handed > 0;
  }

  /** Part `index`, which must be the next one. */
  async part(index: number): Promise<{ data: Uint8Array; last: boolean }> {
    if (index !== this.handed) throw new BadRequest(`part ${this.handed} is due, not part ${index}`);
    this.handed++;
    if (index === 0 && this.head) return this.head;
    return this.read();
  }

  /** The rest of the body as a stream (the owner is this node after all). */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream({
      pull: async (controller) => {
        const { data, last } = await this.part(this.handed);
        if (data.length > 0) controller.enqueue(data);
        if (last) controller.close();
      },
      cancel: () => this.cancel(),
    });
  }

  cancel(): void {
    void this.reader.cancel().catch(() => undefined);
  }

  /** Reads past one part (or to the end), so a part knows whether it is the last. */
  private async read(): Promise<{ data: Uint8Array; last: boolean }> {
    while (!this.ended && this.buffered <= this.partSize) {
      const { value, done } = await this.reader.read();
      if (done) this.ended = true;
      else {
        this.chunks.push(value);
        this.buffered += value.length;
      }
    }
    const data = this.take(Math.min(this.partSize, this.buffered));
    return { data, last: this.ended && this.buffered === 0 };
  }

  private take(size: number): Uint8Array {
    const out = new Uint8Array(size);
    let offset = 0;
    while (offset < size) {
      const chunk = this.chunks[0]!;
      const used = Math.min(chunk.length, size - offset);
      out.set(chunk.subarray(0, used), offset);
      offset += used;
      if (used === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    this.buffered -= size;
    return out;
  }
}

/**
 * The forwarding node's side: answers the owner's pulls of `parts` on an inbox of its own (named
 * in the request message) until closed; `onPull` is told of each (the request is alive).
 */
export function offerBody(
  nc: NatsConnection,
  parts: BodyParts,
  onPull: () => void,
): { subject: string; close(): void } {
  const subject = createInbox();
  // Pulls are answered in the order they came (the owner sends one at a time anyway).
  let previous: Promise<unknown> = Promise.resolve();
  const subscription: Subscription = nc.subscribe(subject, {
    callback: (error, msg) => {
      if (error) return;
      onPull();
      const index = Number(msg.headers?.get(PART) ?? Number.NaN);
      previous = previous.then(async () => {
        const h = natsHeaders();
        try {
          const { data, last } = await parts.part(index);
          h.set(PART, String(index));
          if (last) h.set(LAST, "1");
          msg.respond(data, { headers: h });
        } catch (failure) {
          h.set(
            PART_ERROR,
            failure instanceof BadRequest ? failure.message : "the client's body could not be read",
          );
          msg.respond(new Uint8Array(), { headers: h });
        }
      });
    },
  });
  return { subject, close: () => subscription.unsubscribe() };
}

/** The owner's side: the body as a stream pulling its parts, and what went wrong if anything did. */
export interface PulledBody {
  stream: ReadableStream<Uint8Array>;
  /** Set once a part was refused, out of order or late: the answer to give instead of the app's. */
  failure(): AppError | undefined;
}

export function pullBody(nc: NatsConnection, subject: string, partTimeoutMs: number): PulledBody {
  let failure: AppError | undefined;
  let index = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const h = natsHeaders();
        h.set(PART, String(index));
        try {
          const reply = await nc
            .request(subject, new Uint8Array(), { headers: h, timeout: partTimeoutMs })
            .catch(() => {
              throw new Unavailable(
                `part ${index} of the forwarded body did not arrive within ${partTimeoutMs} ms; retry`,
                1,
              );
            });
          const refused = reply.headers?.get(PART_ERROR);
          if (refused) throw new BadRequest(`the forwarded body is incomplete: ${refused}`);
          const got = reply.headers?.get(PART);
          if (got !== String(index))
            throw new BadRequest(
              `the forwarded body's part ${got ?? "?"} arrived where part ${index} was due`,
            );
          index++;
          if (reply.data.length > 0) controller.enqueue(reply.data);
          if (reply.headers?.get(LAST) === "1") controller.close();
        } catch (error) {
          failure ??= error as AppError;
          controller.error(error);
        }
      },
      // Nothing is pulled before the app reads: an early answer (a 401, a declared length over the
      // route's limit) costs no part, and at most one part per request is in this node's memory.
    },
    { highWaterMark: 0 },
  );
  return { stream, failure: () => failure };
}
