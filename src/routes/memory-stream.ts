import { Elysia } from "elysia";
import { EntryStream } from "../memory/entry-stream.ts";
import {
  resumePosition,
  streamCategories,
  streamFilterOf,
  tenantChangeSource,
} from "../memory/entry-stream-source.ts";
import { EntryEventStream, StreamHeaders, StreamQuery } from "../models/memory-stream.ts";
import { ownerRedirect, problems } from "../models/problem.ts";
import type { Deps } from "./deps.ts";

/**
 * Seconds a closed stream's connection may stay idle before the server drops it: a client that
 * stopped reading otherwise holds its socket (and the bytes in it) for as long as it likes.
 */
const CLOSED_STREAM_IDLE_SECONDS = 10;

/** The streams open on one app, so that stopping the server can end them first (it waits for them). */
const openStreams = new WeakMap<Deps, Set<EntryStream>>();

function streamsOf(deps: Deps): Set<EntryStream> {
  let set = openStreams.get(deps);
  if (!set) {
    set = new Set();
    openStreams.set(deps, set);
  }
  return set;
}

/** Ends every stream open on the app built from `deps` (before the server stops: it waits for open responses). */
export function closeMemoryStreams(deps: Deps): void {
  for (const stream of [...streamsOf(deps)]) stream.end("ended", "the server is stopping");
}

/** The number of streams open on the app built from `deps`. */
export function openMemoryStreams(deps: Deps): number {
  return streamsOf(deps).size;
}

/** `GET /memory/stream`: the caller's tenant's new and changed entries, live, as server-sent events. */
export const memoryStreamRoutes = (deps: Deps) =>
  new Elysia({ name: "routes.memory-stream" }).use(deps.authPlugin).get(
    "/memory/stream",
    ({ query, headers, principal, req, request, server }) => {
      // The schema checked each value; repeated parameters are read from the URL, all of them.
      const filter = streamFilterOf(new URL(request.url).searchParams);
      const after = resumePosition(headers["last-event-id"], query.last_event_id);
      const caller = { principal, req };
      const categories = streamCategories(deps.guard, caller, filter.categories);
      const tenantId = principal.tenantId;
      const streams = streamsOf(deps);
      const source = tenantChangeSource(
        {
          guard: deps.guard,
          tenants: deps.tenants,
          tenant: deps.tenant(tenantId),
          subscribe: (listener) => deps.changeFeeds.subscribe(tenantId, listener),
        },
        caller,
        categories,
        filter.tags,
        query,
      );
      const stream = new EntryStream(source, {
        clock: deps.clock,
        heartbeatMs: deps.config.streamHeartbeatMs,
        after,
        closeAt: Date.parse(principal.expiresAt),
        onClose: (reason) => {
          streams.delete(stream);
          if (reason !== "cancelled") reapWhenIdle(server, request);
        },
      });
      streams.add(stream);
      request.signal.addEventListener("abort", () => stream.close("cancelled"), { once: true });
      // The server's idle timeout counts what the client sends, and a stream's client sends nothing.
      server?.timeout(request, 0);
      return new Response(stream.body, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-store",
          // Proxies (nginx) must pass events on as they come.
          "x-accel-buffering": "no",
        },
      });
    },
    {
      auth: "caller",
      query: StreamQuery,
      headers: StreamHeaders,
      response: { 200: EntryEventStream, ...ownerRedirect(), ...problems(401, 403, 422, 503, 507) },
      detail: {
        tags: ["memory"],
        summary: "Live stream of the tenant's new and changed entries (server-sent events, resumable)",
      },
    },
  );

function reapWhenIdle(server: { timeout(request: Request, seconds: number): void } | null, request: Request) {
  try {
    server?.timeout(request, CLOSED_STREAM_IDLE_SECONDS);
  } catch {
    // The connection is already gone.
  }
}
