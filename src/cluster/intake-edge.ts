/**
 * What the receiving node checks of a webhook delivery before it enters the intake stream: the
 * source's signature (a forged delivery is refused here with 401, never queued) and the event ids
 * the delivery carries, which name the stream message (`Nats-Msg-Id`) and the 202's `queued` list.
 * Anything it cannot decide (an unknown source or tenant, a handshake, a body that does not parse)
 * is left to the owner, whose answer then comes back as usual.
 */
import type { Unauthorized } from "../errors/domain-errors.ts";
import type { IngestPipeline } from "../ingest/deliver.ts";
import { deliveryRejected } from "../ingest/delivery-refusal.ts";
import { findSource } from "../sources/registry.ts";
import type { SystemStore } from "../vault/system-store.ts";

export type EdgeVerdict =
  | { kind: "events"; ids: string[] }
  | { kind: "refused"; error: Unauthorized }
  | { kind: "owner" };

export interface EdgeDeps {
  ingest: IngestPipeline;
  store: SystemStore;
}

export async function checkAtEdge(
  deps: EdgeDeps,
  request: Request,
  target: { source: string; tenantId: string },
  body: Uint8Array,
): Promise<EdgeVerdict> {
  const source = findSource(target.source);
  if (!source || !deps.store.getTenant(target.tenantId)) return { kind: "owner" };
  const ctx = deps.ingest.context(source, target.tenantId);
  const delivery = { method: request.method, url: request.url, headers: request.headers, rawBody: body };
  try {
    if (source.challenge?.(delivery, ctx)) return { kind: "owner" };
    const verdict = await source.verify(delivery, ctx);
    if (!verdict.ok)
      return { kind: "refused", error: deliveryRejected(source.id, request.headers, verdict.reason) };
    if (source.handshake?.(delivery, ctx)) return { kind: "owner" };
    const ids = source.parse(delivery, ctx).map((event) => event.event_id);
    return ids.length > 0 ? { kind: "events", ids } : { kind: "owner" };
  } catch {
    return { kind: "owner" };
  }
}
