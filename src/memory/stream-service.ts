/**
 * `GET /memory/stream`, the service side: the permissions (the categories the caller may read), the
 * tenant's change source and the stream over it, registered while open so the server's stop can
 * end it first.
 */
import type { Static } from "@sinclair/typebox";
import type { Caller } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import type { Config } from "../config/config.ts";
import type { TenantProtocol } from "../protocols/tenant-protocol.ts";
import type { ActorRef } from "../runtime/actor-system.ts";
import type { Clock } from "../runtime/clock.ts";
import type { TenantDirectory } from "../tenants/directory.ts";
import type { ChangeFeeds } from "./change-feed.ts";
import { type CloseReason, EntryStream } from "./entry-stream.ts";
import {
  resumePosition,
  type StreamFilter,
  streamCategories,
  tenantChangeSource,
} from "./entry-stream-source.ts";
import type { OpenStreams } from "./open-streams.ts";
import type { StreamQuery } from "./stream-model.ts";

export interface MemoryStreamServiceDeps {
  guard: Guard;
  clock: Clock;
  config: Pick<Config, "streamHeartbeatMs">;
  /** Asked at each event whether the tenant still exists and is active. */
  tenants: Pick<TenantDirectory, "get">;
  tenant(tenantId: string): ActorRef<TenantProtocol>;
  /** Each tenant's committed changes, live. */
  changeFeeds: Pick<ChangeFeeds, "subscribe">;
  /** Where open streams are kept until they close (open-streams.ts). */
  streams: OpenStreams;
}

/** What a stream is opened from: the validated query, the filter read from the URL, the resume position. */
export interface StreamRequest {
  query: Static<typeof StreamQuery>;
  filter: StreamFilter;
  lastEventIdHeader?: string;
}

export class MemoryStreamService {
  constructor(private readonly deps: MemoryStreamServiceDeps) {}

  /** Opens the caller's tenant's stream; `onClose` is told why it closed, once it has. */
  open(caller: Caller, request: StreamRequest, onClose: (reason: CloseReason) => void): EntryStream {
    const { guard, tenants, changeFeeds, streams } = this.deps;
    const { query, filter } = request;
    const after = resumePosition(request.lastEventIdHeader, query.last_event_id);
    const categories = streamCategories(guard, caller, filter.categories);
    const { principal } = caller;
    const tenantId = principal.tenantId;
    const source = tenantChangeSource(
      {
        guard,
        tenants,
        tenant: this.deps.tenant(tenantId),
        subscribe: (listener) => changeFeeds.subscribe(tenantId, listener),
      },
      caller,
      categories,
      filter.tags,
      query,
    );
    const stream = new EntryStream(source, {
      clock: this.deps.clock,
      heartbeatMs: this.deps.config.streamHeartbeatMs,
      after,
      closeAt: Date.parse(principal.expiresAt),
      onClose: (reason) => {
        streams.delete(stream);
        onClose(reason);
      },
    });
    streams.add(stream);
    return stream;
  }
}
