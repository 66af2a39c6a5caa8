/**
 * `bridge.deliver(tenantId, event)`: how a chat platform's adapter, running in the same process,
 * hands its events to the runtime. The event is validated (a malformed one is a BridgeEventInvalid
 * and nothing is written), the tenant must exist (NotFound), and at most `queueLimit` events wait
 * per tenant: past that the call is refused with BridgeQueueFull instead of memory growing. A cluster
 * node that does not serve the tenant's partition refuses it (BridgeNotServedHere, a 503) before
 * anything is queued: only the owner writes the tenant's vault.
 */
import { AppError, NotFound, Unavailable } from "../errors/domain-errors.ts";
import { ULID_RE } from "../models/common.ts";
import type { BridgeProtocol, BridgeResult } from "../protocols/connector-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import { validBridgeEvent } from "./events.ts";

export { BridgeEventInvalid } from "./events.ts";
export type { BridgeResult };

/** More bridge events are waiting for this tenant than the configured bound: retry later. */
export class BridgeQueueFull extends AppError {
  override readonly status = 429;
  override readonly code = "bridge_queue_full";
  override readonly title = "Bridge queue full";
  constructor(readonly limit: number) {
    super(`${limit} bridge events are already waiting for this tenant; deliver again later`);
    this.headers["retry-after"] = "1";
  }
}

/** Cluster mode: the tenant's partition is served by another node, which its adapter must call. */
export class BridgeNotServedHere extends Unavailable {
  constructor() {
    super("this node does not serve the tenant's partition: deliver to its owner (GET /healthz names it)", 1);
  }
}

export interface BridgeOptions {
  tenantExists(tenantId: string): boolean;
  /** False on a cluster node that does not serve the tenant's partition (always true otherwise). */
  servedHere(tenantId: string): boolean;
  actor(tenantId: string): ActorRef<BridgeProtocol>;
  queueLimit: number;
}

export class MessagingBridge {
  private readonly waiting = new Map<string, number>();

  constructor(private readonly options: BridgeOptions) {}

  async deliver(tenantId: string, event: unknown): Promise<BridgeResult> {
    if (typeof tenantId !== "string" || !ULID_RE.test(tenantId) || !this.options.tenantExists(tenantId))
      throw new NotFound("no such tenant");
    if (!this.options.servedHere(tenantId)) throw new BridgeNotServedHere();
    const valid = validBridgeEvent(event);
    const queued = this.waiting.get(tenantId) ?? 0;
    if (queued >= this.options.queueLimit) throw new BridgeQueueFull(this.options.queueLimit);
    this.waiting.set(tenantId, queued + 1);
    try {
      return await this.options.actor(tenantId).ask({ type: "bridge.deliver", event: valid });
    } finally {
      const left = (this.waiting.get(tenantId) ?? 1) - 1;
      if (left > 0) this.waiting.set(tenantId, left);
      else this.waiting.delete(tenantId);
    }
  }

  /** Events waiting (or being written) for a tenant. */
  queued(tenantId: string): number {
    return this.waiting.get(tenantId) ?? 0;
  }
}
