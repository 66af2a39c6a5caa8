/**
 * Server-sent events from `CRM_STREAM_URL` through the `eventsource` client. The access token goes
 * in `Authorization` through the client's `fetch` option; a resumed stream sends the stored cursor
 * as `Last-Event-ID`. The client's own reconnect is switched off (the stream is closed on its first
 * error) so reconnects follow the connector's backoff through the injected clock.
 */
import { type ErrorEvent, EventSource, type EventSourceFetchInit, type FetchLikeResponse } from "eventsource";
import { retryAfterOf } from "../../../src/connectors/retry-after.ts";
import {
  eventUuidOf,
  type StreamEvent,
  type StreamHandle,
  type StreamHandlers,
} from "../../../src/connectors/transport.ts";
import { type Clock, systemClock, type TimerHandle } from "../../../src/runtime/clock.ts";

export interface SseOptions {
  url: string;
  accessToken: string;
  /** The id of the last event committed: the stream resumes after it. */
  lastEventId?: string;
  /** The channel of events that do not name one. */
  defaultChannel: string;
  fetch?: typeof fetch;
  /** A stream that has not opened by then is given up (a peer that accepts and never answers). */
  openTimeoutMs?: number;
  /**
   * An open stream that sends nothing (no event, no heartbeat comment) for `ms` is closed as silent,
   * on the connector's clock: a half-dead connection otherwise waits forever.
   */
  silence?: { clock: Clock; ms: number };
  /** Reads an HTTP-date `Retry-After`; the silence clock, else the system clock. */
  clock?: Clock;
}

const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

export function openSseStream(options: SseOptions, handlers: StreamHandlers): StreamHandle {
  const base = options.fetch ?? fetch;
  const clock = options.clock ?? options.silence?.clock ?? systemClock;
  let closed = false;
  let watchdog: TimerHandle | undefined;
  /** The wait a 429 or 503 answer asked for; the client only reports the status, so it is read here. */
  let retryAfterMs: number | undefined;
  /** Any bytes from the peer (an event, a heartbeat comment) prove the stream alive. */
  const alive = () => {
    const silence = options.silence;
    if (!silence || closed) return;
    watchdog?.cancel();
    watchdog = silence.clock.setTimeout(
      () => finish(`stream silent for ${Math.round(silence.ms / 1000)} s`),
      silence.ms,
    );
  };
  const withAuth = async (url: string | URL, init: EventSourceFetchInit): Promise<FetchLikeResponse> => {
    const headers: Record<string, string> = {
      ...init.headers,
      Authorization: `Bearer ${options.accessToken}`,
    };
    // The client sends Last-Event-ID itself after events it saw; the first request resumes from storage.
    if (options.lastEventId && !("Last-Event-ID" in init.headers))
      headers["Last-Event-ID"] = options.lastEventId;
    const response = (await base(url, { ...init, headers })) as FetchLikeResponse;
    retryAfterMs = retryAfterOf(response, clock.now());
    return options.silence ? tapped(response, alive) : response;
  };
  const source = new EventSource(options.url, { fetch: withAuth });
  // A network guard, not a schedule: real time, and it never outlives the connection attempt.
  const openTimer = setTimeout(
    () => finish("stream did not open in time"),
    options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS,
  );
  openTimer.unref?.();
  const finish = (reason: string, status?: number) => {
    clearTimeout(openTimer);
    watchdog?.cancel();
    if (closed) return;
    closed = true;
    source.close();
    handlers.onClosed(retryAfterMs === undefined ? { reason, status } : { reason, status, retryAfterMs });
  };
  source.addEventListener("open", () => {
    clearTimeout(openTimer);
    if (closed) return;
    alive();
    handlers.onOpen();
  });
  source.addEventListener("message", (message) => {
    if (closed) return;
    const event = parseSseEvent(message.data, message.lastEventId, options.defaultChannel);
    if (event) handlers.onEvent(event);
    else handlers.onWarning?.("an event without a change event payload was skipped");
  });
  source.addEventListener("error", (event) => {
    const error = event as ErrorEvent;
    finish(
      error.code
        ? `stream answered ${error.code}`
        : `stream closed${error.message ? `: ${error.message}` : ""}`,
      error.code,
    );
  });
  return {
    close() {
      clearTimeout(openTimer);
      watchdog?.cancel();
      closed = true;
      source.close();
    },
  };
}

/** The response with its body passed through unchanged, calling `onBytes` for every chunk. */
function tapped(response: FetchLikeResponse, onBytes: () => void): FetchLikeResponse {
  if (!(response.body instanceof ReadableStream)) return response;
  const body = (response.body as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onBytes();
        controller.enqueue(chunk);
      },
    }),
  );
  return {
    body,
    url: response.url,
    status: response.status,
    redirected: response.redirected,
    headers: response.headers,
  };
}

/**
 * One SSE message: either a Bayeux-shaped `{channel, data: {payload, event: {replayId}}}`, a bare
 * `{payload, event}`, or a bare change event. The SSE `id` is the cursor and, when the data names
 * none, the replay id.
 */
export function parseSseEvent(data: string, id: string, defaultChannel: string): StreamEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null) return undefined;
  const outer = body as Record<string, unknown>;
  const inner = isObject(outer.data) ? outer.data : outer;
  const payload = isObject(inner.payload) ? inner.payload : inner;
  const meta = isObject(inner.event) ? inner.event : {};
  const channel = typeof outer.channel === "string" && outer.channel ? outer.channel : defaultChannel;
  const replay = meta.replayId;
  const replayId = typeof replay === "number" || (typeof replay === "string" && replay) ? replay : id;
  if (replayId === "" || replayId === undefined) return undefined;
  return { channel, replayId, cursor: id || String(replayId), payload, eventUuid: eventUuidOf(meta) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
