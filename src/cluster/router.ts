/**
 * The cluster's front door (docs/cluster.md, "Request forwarding"): a request for a tenant this
 * node owns is handled by the local app after its write is appended (fenced) to the partition log;
 * one for a tenant another node owns is forwarded to it over NATS request/reply and its answer
 * returned unchanged; with no owner within `ownerWaitMs`, 503 with `Retry-After`.
 */
import type { Msg, Subscription } from "@nats-io/transport-node";
import { PayloadTooLarge, Unavailable } from "../errors.ts";
import { problemResponse } from "../http/errors.ts";
import { assignRequestId } from "../http/request-id.ts";
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  isNotOwner,
  notOwnerReply,
} from "./forward-codec.ts";
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

/** Room left in a NATS message for the forwarded request's headers. */
const HEADER_ROOM = 64 * 1024;
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
    const tooLarge = this.tooLarge(request);
    if (tooLarge) return tooLarge;
    return this.options.intake!.accept(request, target, new Uint8Array(await request.arrayBuffer()));
  }

  /** A body NATS cannot carry in one message: the 413 names the way out. */
  private tooLarge(request: Request): Response | undefined {
    const declared = Number(request.headers.get("content-length") ?? "0");
    const maxBody = this.node.nc.info?.max_payload ?? 1024 * 1024;
    if (declared <= maxBody - HEADER_ROOM) return undefined;
    const error = new PayloadTooLarge("body too large to forward: send it to the owner node");
    return problemResponse(error, assignRequestId(request));
  }

  private async forward(request: Request, tenantId: string, partition: number): Promise<Response> {
    const requestId = assignRequestId(request);
    const tooLarge = this.tooLarge(request);
    if (tooLarge) return tooLarge;
    const body = new Uint8Array(await request.arrayBuffer());
    const deadline = performance.now() + this.options.ownerWaitMs;
    for (;;) {
      const owner = this.node.ownership.ownerOf(partition);
      if (owner === this.node.nodeId) {
        const local = await this.serveOwned(rebuilt(request, body), tenantId);
        if (local) return local;
      } else if (owner !== undefined) {
        const answer = await this.ask(owner, request, body);
        if (answer) return answer;
      }
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
    try {
      const reply = await this.node.nc.request(httpSubject(owner), payload, {
        headers,
        timeout: this.options.forwardTimeoutMs,
      });
      return isNotOwner(reply) ? undefined : decodeResponse(reply);
    } catch {
      return undefined;
    }
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
    msg.respond(reply.payload, { headers: reply.headers });
  }

  stop(): void {
    this.subscription?.unsubscribe();
  }
}

function rebuilt(request: Request, body: Uint8Array): Request {
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? body : undefined,
  });
}
