import { Elysia } from "elysia";
import type { HttpKit } from "../http/http-kit.ts";
import { ownerRedirect, problems } from "../models/problem.ts";
import { streamFilterOf } from "./entry-stream-source.ts";
import { EntryEventStream, StreamHeaders, StreamQuery } from "./stream-model.ts";
import type { MemoryStreamService } from "./stream-service.ts";

export interface MemoryStreamRouteDeps {
  http: HttpKit;
  streams: MemoryStreamService;
}

/**
 * Seconds a closed stream's connection may stay idle before the server drops it: a client that
 * stopped reading otherwise holds its socket (and the bytes in it) for as long as it likes.
 */
const CLOSED_STREAM_IDLE_SECONDS = 10;

/** `GET /memory/stream`: the caller's tenant's new and changed entries, live, as server-sent events. */
export const memoryStreamRoutes = ({ http, streams }: MemoryStreamRouteDeps) =>
  new Elysia({ name: "routes.memory-stream" }).use(http.authPlugin).get(
    "/memory/stream",
    ({ query, headers, principal, req, request, server }) => {
      // The schema checked each value; repeated parameters are read from the URL, all of them.
      const filter = streamFilterOf(new URL(request.url).searchParams);
      const stream = streams.open(
        { principal, req },
        { query, filter, lastEventIdHeader: headers["last-event-id"] },
        (reason) => {
          if (reason !== "cancelled") reapWhenIdle(server, request);
        },
      );
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
