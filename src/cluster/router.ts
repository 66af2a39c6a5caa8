/**
 * The cluster's front door (docs/cluster.md, "Request forwarding"): a request for a tenant this
 * node owns is handled by the local app after its write is appended (fenced) to the partition log;
 * one for a tenant another node owns is forwarded to it over NATS request/reply and its answer
 * returned unchanged (in consecutive parts when over one message; a body over one message is
 * pulled by the owner in parts, forward-body.ts), except the live stream (a reply that never
 * ends), answered 307 to the owner's advertised URL; with no owner (or no owner's URL) within
 * `ownerWaitMs`, 503 with `Retry-After`.
 */
import type { Msg, Subscription } from "@nats-io/transport-node";
import { type AppError, Unavailable } from "../errors/domain-errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId, requestIdOf } from "../http/request-id.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { BODY_LENGTH, BODY_SUBJECT, BodyParts, offerBody, pullBody } from "./forward-body.ts";
import {
  decodeRequest,
  decodeResponse,
  type EncodedMessage,
  encodeRequest,
  encodeResponse,
  isNotOwner,
  notOwnerReply,
  pastDeadline,
  setDeadline,
} from "./forward-codec.ts";
import { HEADER_ROOM, inParts, requestInParts } from "./forward-parts.ts";
import { type Intake, webhookTarget } from "./intake.ts";
import { httpSubject } from "./names.ts";
import type { ClusterNode } from "./node.ts";
import { partitionOf } from "./partition.ts";
import { tenantOfRequest } from "./request-tenant.ts";

export interface RouterOptions {
  /** How long a request waits for its partition to have an owner before the 503. */
  ownerWaitMs: number;
  /** How long a forwarded request may take on the owner. */
  forwardTimeoutMs: number;
  /** Seconds suggested to the client by the 503's Retry-After. */
  retryAfterSeconds: number;
  /** Durable webhook intake: deliveries go to the stream instead of being forwarded. */
  intake?: Intake;
  /** Awaited before an owned tenant's request runs (the system replica catching up on an unknown tenant). */
  beforeServe?: (tenantId: string) => Promise<void>;
  /** Wall-clock time, for forwarded requests' deadlines (the runtime's injected clock). */
  now?: () => number;
  /** Times each forward, in a `cluster.forward` span whose `traceparent` the owner receives. */
  telemetry?: Telemetry;
}

export const DEFAULT_ROUTER_OPTIONS: RouterOptions = {
  ownerWaitMs: 2000,
  forwardTimeoutMs: 10_000,
  retryAfterSeconds: 2,
};

/** How often a request waiting for an owner looks again. */
const OWNER_POLL_MS = 25;
/**
 * Forwarded requests whose body this node pulls in parts at once, at most: each holds one part
 * (under one NATS message) beyond what its route reads; past it, 503 with Retry-After.
 */
export const MAX_PULLED_BODIES = 16;

export class ClusterRouter {
  private subscription: Subscription | undefined;
  /** Forwarded requests whose body is being pulled here now. */
  private pulledBodies = 0;

  constructor(
    private readonly node: ClusterNode,
    private readonly app: (request: Request) => Response | Promise<Response>,
    private readonly options: RouterOptions = DEFAULT_ROUTER_OPTIONS,
  ) {}

  /** Answers requests other nodes forward to this one. */
  listen(): void {
    this.subscription = this.node.nc.subscribe(httpSubject(this.node.nodeId), {
      callback: (error, msg) => {
        if (!error) void this.answerForwarded(msg);
      },
    });
  }

  async handle(request: Request): Promise<Response> {
    const tenantId = tenantOfRequest(request);
    if (tenantId === undefined) return this.app(request);
    const webhook = this.options.intake ? webhookTarget(request) : undefined;
    if (webhook) return this.intake(request, webhook);
    const partition = partitionOf(tenantId);
    if (this.node.ownership.owns(partition)) {
      const local = await this.serveOwned(request, tenantId);
      if (local) return local;
    }
    return this.forward(request, tenantId, partition);
  }

  /**
   * A delivery that fits one intake stream message is queued there (durable before it is
   * answered). A larger one (up to the webhook body limit, which is over one message) is not
   * queued: it is forwarded to the owner as any request, which applies it before answering, as a
   * single node does, and whose own limit answers 413.
   */
  private async intake(request: Request, target: { source: string; tenantId: string }): Promise<Response> {
    const body = await BodyParts.of(request, this.partSize());
    if ("whole" in body) return this.options.intake!.accept(request, target, body.whole);
    return this.forwardBody(request, target.tenantId, partitionOf(target.tenantId), body);
  }

  /** The largest body (or body part) one NATS message carries beside its headers. */
  private partSize(): number {
    return this.maxPayload() - HEADER_ROOM;
  }

  /** The NATS server's message size limit. */
  private maxPayload(): number {
    return this.node.nc.info?.max_payload ?? 1024 * 1024;
  }

  private async forward(request: Request, tenantId: string, partition: number): Promise<Response> {
    if (isLiveStream(request)) return this.redirect(request, tenantId, partition);
    return this.forwardBody(request, tenantId, partition, await BodyParts.of(request, this.partSize()));
  }

  /**
   * Forwards the request, timed; with tracing on in a `cluster.forward` span (the child of the
   * client's `traceparent`, if any) whose own trace context the owner receives in `trace`.
   */
  private forwardBody(
    request: Request,
    tenantId: string,
    partition: number,
    body: Awaited<ReturnType<typeof BodyParts.of>>,
  ): Promise<Response> {
    const telemetry = this.options.telemetry;
    const trace: Record<string, string> = {};
    const forward = () => this.forwardTo(request, tenantId, partition, body, trace);
    if (!telemetry) return forward();
    return telemetry.underRemoteParent(request.headers, () =>
      telemetry.time("cluster.forward", [], async (timing) => {
        timing.inject(trace);
        const answer = await forward();
        if (answer.status >= 500) timing.fail(`HTTP ${answer.status}`);
        return answer;
      }),
    );
  }

  private forwardTo(
    request: Request,
    tenantId: string,
    partition: number,
    body: Awaited<ReturnType<typeof BodyParts.of>>,
    trace: Record<string, string>,
  ): Promise<Response> {
    return this.untilOwned(request, partition, async (owner) => {
      if ("whole" in body)
        return owner === this.node.nodeId
          ? this.serveOwned(rebuilt(request, body.whole), tenantId)
          : this.ask(owner, request, body.whole, trace);
      // Parts already sent to an owner that then failed cannot be sent again: the client retries.
      if (body.parts.started) return this.bodyLost(request);
      return owner === this.node.nodeId
        ? this.serveOwned(rebuilt(request, body.parts.stream()), tenantId)
        : this.askWithBodyInParts(owner, request, body.parts, trace);
    });
  }

  /**
   * The live stream (a reply that never ends) goes to the owner itself: 307 to its advertised HTTP
   * base URL, path and query kept (the client repeats method and body).
   */
  private redirect(request: Request, tenantId: string, partition: number): Promise<Response> {
    return this.untilOwned(request, partition, async (owner) => {
      if (owner === this.node.nodeId) return this.serveOwned(request, tenantId);
      const base = this.node.membership.httpUrlOf(owner);
      if (base === undefined) return undefined;
      const url = new URL(request.url);
      const headers = {
        location: `${base}${url.pathname}${url.search}`,
        "x-request-id": requestIdOf(request),
      };
      return new Response(null, { status: 307, headers });
    });
  }

  /** Asks `attempt` with the partition's owner until it answers, or 503 after `ownerWaitMs`. */
  private async untilOwned(
    request: Request,
    partition: number,
    attempt: (owner: string) => Promise<Response | undefined>,
  ): Promise<Response> {
    const requestId = assignRequestId(request);
    const deadline = performance.now() + this.options.ownerWaitMs;
    for (;;) {
      const owner = this.node.ownership.ownerOf(partition);
      const answer = owner === undefined ? undefined : await attempt(owner);
      if (answer) return answer;
      if (performance.now() >= deadline) {
        const unavailable = new Unavailable(
          `no node serves this tenant's partition (${partition}) now`,
          this.options.retryAfterSeconds,
        );
        return problemResponse(unavailable, requestId);
      }
      await Bun.sleep(OWNER_POLL_MS);
    }
  }

  /**
   * A body over one message: the owner pulls its parts from this node while its app reads them
   * (forward-body.ts); each pull restarts the wait for the answer. Undefined (ask again, maybe
   * another owner) only while no part has left this node.
   */
  private async askWithBodyInParts(
    owner: string,
    request: Request,
    parts: BodyParts,
    trace: Record<string, string>,
  ): Promise<Response | undefined> {
    const activity = new EventTarget();
    const offer = offerBody(this.node.nc, parts, () => activity.dispatchEvent(new Event("pull")));
    const { headers, payload } = this.withDeadline(encodeRequest(request, new Uint8Array(), trace));
    headers.set(BODY_SUBJECT, offer.subject);
    const declared = request.headers.get("content-length");
    if (declared) headers.set(BODY_LENGTH, declared);
    try {
      const reply = await requestInParts(
        this.node.nc,
        httpSubject(owner),
        { headers, payload },
        this.options.forwardTimeoutMs,
        activity,
      ).catch(() => undefined);
      if (!parts.started && (!reply || isNotOwner(reply))) return undefined;
      // Answered (maybe before the whole body was read: a 413, a 401), or lost: the rest is not wanted.
      parts.cancel();
      return reply && !isNotOwner(reply) ? decodeResponse(reply) : this.bodyLost(request);
    } finally {
      offer.close();
    }
  }

  /** The owner went away while it was reading the body: nothing says whether it was applied. */
  private bodyLost(request: Request): Response {
    const error = new Unavailable("the owner stopped answering while it read the request body; retry", 1);
    return problemResponse(error, requestIdOf(request));
  }

  /** The owner's answer, or undefined when it is no owner any more or does not answer. */
  private async ask(
    owner: string,
    request: Request,
    body: Uint8Array,
    trace: Record<string, string>,
  ): Promise<Response | undefined> {
    const { headers, payload } = this.withDeadline(encodeRequest(request, body, trace));
    const reply = await requestInParts(
      this.node.nc,
      httpSubject(owner),
      { headers, payload },
      this.options.forwardTimeoutMs,
    ).catch(() => undefined); // a closed connection: no answer, as a timeout
    return reply === undefined || isNotOwner(reply) ? undefined : decodeResponse(reply);
  }

  /**
   * Handles a request of an owned partition (its vault writes are fenced in the changelog). A read
   * during which the partition left this node may have read the copy being removed (or found none:
   * local-copies.ts): undefined, so it is asked again of the next owner.
   */
  private async serveOwned(request: Request, tenantId: string): Promise<Response | undefined> {
    const partition = partitionOf(tenantId);
    const epoch = this.node.ownership.epochOf(partition);
    await this.options.beforeServe?.(tenantId);
    const response = await this.app(request);
    if (isRead(request) && this.node.ownership.epochOf(partition) !== epoch) return undefined;
    return response;
  }

  private withDeadline(message: EncodedMessage): EncodedMessage {
    return setDeadline(message, this.now() + this.options.forwardTimeoutMs);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  private async answerForwarded(msg: Msg): Promise<void> {
    // Its sender answered 503 already and is not listening: run nothing, answer nothing.
    if (pastDeadline(msg, this.now())) return;
    const reply = await this.answerOf(msg);
    // An answer over one message goes back in consecutive parts (src/cluster/forward-parts.ts).
    for (const part of inParts(reply, this.maxPayload()))
      msg.respond(part.payload, { headers: part.headers });
  }

  /** "Not owner" (nothing of the body pulled, so it may be sent elsewhere), or the app's answer. */
  private async answerOf(msg: Msg): Promise<EncodedMessage> {
    const request = decodeRequest(msg);
    const tenantId = tenantOfRequest(request);
    if (tenantId === undefined || !this.node.ownership.owns(partitionOf(tenantId))) return notOwnerReply();
    const bodySubject = msg.headers?.get(BODY_SUBJECT);
    if (bodySubject) return this.answerPullingBody(msg, bodySubject, tenantId);
    const response = await this.serveOwned(request, tenantId).catch(() => undefined);
    return response ? encodeResponse(response) : notOwnerReply();
  }

  /**
   * A request whose body is pulled from the forwarding node as the app reads it. A broken pull
   * (a part refused, out of order, or late) is answered for itself (400, 503), whatever the app
   * made of its unreadable body.
   */
  private async answerPullingBody(msg: Msg, bodySubject: string, tenantId: string): Promise<EncodedMessage> {
    const head = decodeRequest(msg);
    if (this.pulledBodies >= MAX_PULLED_BODIES)
      return this.problem(
        new Unavailable("too many forwarded request bodies on their way here; retry", 1),
        head,
      );
    this.pulledBodies++;
    try {
      const body = pullBody(this.node.nc, bodySubject, this.options.forwardTimeoutMs);
      const request = decodeRequest(msg, body.stream, msg.headers?.get(BODY_LENGTH) || undefined);
      const response = await this.serveOwned(request, tenantId).catch(() => undefined);
      const failure = body.failure();
      if (failure) return this.problem(failure, request);
      return response ? encodeResponse(response) : notOwnerReply();
    } finally {
      this.pulledBodies--;
    }
  }

  private problem(error: AppError, request: Request): Promise<EncodedMessage> {
    return encodeResponse(problemResponse(error, assignRequestId(request)));
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

/** A request that changes nothing, so it may be asked again of another node. */
function isRead(request: Request): boolean {
  return request.method === "GET" || request.method === "HEAD";
}

/** The live entry stream (server-sent events): a reply over NATS never ends, so it is redirected. */
function isLiveStream(request: Request): boolean {
  return request.method === "GET" && new URL(request.url).pathname === "/memory/stream";
}

function rebuilt(request: Request, body: Uint8Array | ReadableStream<Uint8Array>): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? body : undefined,
  });
}
