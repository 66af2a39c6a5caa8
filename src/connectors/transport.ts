// Shared connector plumbing stays in src/connectors/: src/ uses it too (mail ingest, outbound, protocols) and never imports from actors/.
/**
 * What a streaming transport (SSE or Bayeux long-poll) reports to its connector. Transports never
 * throw at their caller: every failure ends the stream with one `onClosed`, after which the
 * connector decides when to connect again.
 */
export interface StreamEvent {
  /** The channel the event arrived on, e.g. `/data/ChangeEvents`. */
  channel: string;
  /** The platform's replay id of this event on its channel. */
  replayId: string | number;
  /** SSE only: the event's `id` field, sent back as `Last-Event-ID` to resume. */
  cursor?: string;
  /** The change event itself (`{ChangeEventHeader, ...fields}`). */
  payload: unknown;
  /** The event's own unique id (EventUuid) when the platform sends one. */
  eventUuid?: string;
}

export interface StreamClosed {
  /** A short, log-safe reason: never a token. */
  reason: string;
  /** The HTTP status that ended the stream, when there was one (401 → authenticate again). */
  status?: number;
  /** The server said when to come back (`Retry-After` on 429/503, Bayeux `advice.interval`): wait exactly that. */
  retryAfterMs?: number;
  /** The server asked not to come back at all (Bayeux `advice.reconnect: "none"`). */
  final?: boolean;
}

export interface StreamHandlers {
  onOpen(): void;
  onEvent(event: StreamEvent): void;
  /** A non-fatal problem worth showing in the connector's status. */
  onWarning?(message: string): void;
  /** Called at most once, and never after `close()`. */
  onClosed(closed: StreamClosed): void;
}

export interface StreamHandle {
  /** Ends the stream now; no handler is called afterwards. */
  close(): void;
}

/**
 * A fetch bounded by an outer signal (the runtime stopping) and, unless `timeoutMs` is undefined
 * (a stream that stays open), by a timeout.
 */
export function boundedFetch(
  base: typeof fetch,
  outer: AbortSignal | undefined,
  timeoutMs?: number,
): typeof fetch {
  const bounded = (input: string | URL | Request, init: RequestInit = {}) => {
    const signals: AbortSignal[] = timeoutMs === undefined ? [] : [AbortSignal.timeout(timeoutMs)];
    if (outer) signals.push(outer);
    if (init.signal) signals.push(init.signal);
    return base(input, { ...init, signal: AbortSignal.any(signals) });
  };
  return bounded as typeof fetch;
}

/** The event's own id when it carries one (EventUuid); replay ids are per channel, not unique. */
export function eventUuidOf(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  const e = event as Record<string, unknown>;
  for (const key of ["EventUuid", "eventUuid", "EventUUID"]) {
    const value = e[key];
    if (typeof value === "string" && value.trim() && value.length <= 256) return value.trim();
  }
  return undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
