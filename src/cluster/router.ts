/**
 * The cluster's front door (docs/cluster.md, "Request forwarding"): a request for a tenant this
 * node owns is handled by the local app after its write is appended (fenced) to the partition log;
 * one for a tenant another node owns is forwarded to it over NATS request/reply and its answer
 * returned unchanged (in consecutive parts when over one message), except what NATS cannot carry
 * (the live stream, a batch body over one message), answered 307 to the owner's advertised URL;
 * with no owner (or no owner's URL) within `ownerWaitMs`, 503 with `Retry-After`.
 */
import type { Msg, Subscription } from "@nats-io/transport-node";
import { PayloadTooLarge, Unavailable } from "../errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId, requestIdOf } from "../http/request-id.ts";
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  isNotOwner,
  notOwnerReply,
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
}

export const DEFAULT_ROUTER_OPTIONS: RouterOptions = {
  ownerWaitMs: 2000,
  forwardTimeoutMs: 10_000,
  retryAfterSeconds: 2,
};

/** How often a request waiting for an owner looks again. */
const OWNER_POLL_MS = 25;

export class ClusterRouter {
  private subscription: Subscription | undefined;

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

  private async intake(request: Request, target: { source: string; tenantId: string }): Promise<Response> {
    if (this.tooLarge(request)) return this.payloadTooLarge(request);
    return this.options.intake!.accept(request, target, new Uint8Array(await request.arrayBuffer()));
  }

  /** A body NATS cannot carry in one message. */
  private tooLarge(request: Request): boolean {
    const declared = Number(request.headers.get("content-length") ?? "0");
    return declared > this.maxPayload() - HEADER_ROOM;
  }

  /** The NATS server's message size limit. */
  private maxPayload(): number {
    return this.node.nc.info?.max_payload ?? 1024 * 1024;
  }

  /** The 413 of a body too large to forward on a route that does not redirect: it names the way out. */
  private payloadTooLarge(request: Request): Response {
    const error = new PayloadTooLarge("body too large to forward: send it to the owner node");
    return problemResponse(error, assignRequestId(request));
  }

  private async forward(request: Request, tenantId: string, partition: number): Promise<Response> {
    if (this.tooLarge(request)) {
      if (!redirectsWhenTooLarge(request)) return this.payloadTooLarge(request);
      return this.redirect(request, tenantId, partition);
    }
    if (isLiveStream(request)) return this.redirect(request, tenantId, partition);
    const body = new Uint8Array(await request.arrayBuffer());
    return this.untilOwned(request, partition, async (owner) =>
      owner === this.node.nodeId
        ? this.serveOwned(rebuilt(request, body), tenantId)
        : this.ask(owner, request, body),
    );
  }

  /**
   * What NATS cannot carry (a live stream, a body over one message) goes to the owner itself: 307
   * to its advertised HTTP base URL, path and query kept (the client repeats method and body).
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

  /** The owner's answer, or undefined when it is no owner any more or does not answer. */
  private async ask(owner: string, request: Request, body: Uint8Array): Promise<Response | undefined> {
    const { headers, payload } = encodeRequest(request, body);
    const reply = await requestInParts(
      this.node.nc,
      httpSubject(owner),
      { headers, payload },
      this.options.forwardTimeoutMs,
    ).catch(() => undefined); // a closed connection: no answer, as a timeout
    return reply === undefined || isNotOwner(reply) ? undefined : decodeResponse(reply);
  }

  /** Handles a request of an owned partition (its vault writes are fenced in the changelog). */
  private async serveOwned(request: Request, tenantId: string): Promise<Response | undefined> {
    await this.options.beforeServe?.(tenantId);
    return this.app(request);
  }

  private async answerForwarded(msg: Msg): Promise<void> {
    const request = decodeRequest(msg);
    const tenantId = tenantOfRequest(request);
    const owned = tenantId !== undefined && this.node.ownership.owns(partitionOf(tenantId));
    const response = owned ? await this.serveOwned(request, tenantId).catch(() => undefined) : undefined;
    const reply = response ? await encodeResponse(response) : notOwnerReply();
    // An answer over one message goes back in consecutive parts (src/cluster/forward-parts.ts).
    for (const part of inParts(reply, this.maxPayload()))
      msg.respond(part.payload, { headers: part.headers });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

/** The live entry stream (server-sent events): a reply over NATS never ends, so it is redirected. */
function isLiveStream(request: Request): boolean {
  return request.method === "GET" && new URL(request.url).pathname === "/memory/stream";
}

/**
 * Routes whose body limit is over one NATS message (the batch writes, 16x the body limit): a body
 * too large to forward is redirected to the owner. Elsewhere it stays a 413 (declared on them).
 */
function redirectsWhenTooLarge(request: Request): boolean {
  return request.method === "POST" && /^\/memory\/[a-z_-]+\/batch$/.test(new URL(request.url).pathname);
}

function rebuilt(request: Request, body: Uint8Array): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? body : undefined,
  });
}
