/**
 * The server's stop as HTTP sees it (docs/operations.md, "Graceful shutdown"). From the moment it
 * begins, readiness fails (`GET /readyz` 503) and every new request but the two probes is answered
 * 503 `shutting_down` with `Retry-After` and `Connection: close`, while the requests already in
 * flight run to their end; then the listener closes.
 */
import { Elysia } from "elysia";
import { requestInfo } from "../auth/caller.ts";
import { ShuttingDown } from "../errors/domain-errors.ts";
import type { Clock } from "../runtime/clock.ts";

/** Answered while stopping: the orchestrator reads them to follow the stop. */
const PROBES = new Set(["/livez", "/readyz"]);
/** How often the requests still in flight are counted while the server drains. */
const DRAIN_POLL_MS = 10;

export class ShutdownGate {
  private began = false;

  /** True once the stop has begun: readiness fails and new requests are refused. */
  get stopping(): boolean {
    return this.began;
  }

  begin(): void {
    this.began = true;
  }
}

/** Refuses new requests once the gate's stop has begun; one boolean read per request until then. */
export const shutdownGatePlugin = (gate: ShutdownGate) =>
  new Elysia({ name: "shutdown-gate" }).onRequest(({ request }) => {
    if (gate.stopping && !PROBES.has(requestInfo(request).path)) throw new ShuttingDown();
  });

/** What of a Bun server the drain reads and closes. */
export interface DrainableServer {
  /** Requests whose response has not ended (a streamed body counts until its last byte). */
  readonly pendingRequests: number;
}

/**
 * Waits until `server` has no request in flight, or `timeoutMs` has passed. Resolves to the
 * number still in flight then (0 after a clean drain): the caller closes their connections.
 * Bun has no event for a request's end, so the count is read every few milliseconds, only here.
 */
export async function requestsEnded(
  server: DrainableServer,
  timeoutMs: number,
  clock: Clock,
): Promise<number> {
  const deadline = clock.now() + timeoutMs;
  while (server.pendingRequests > 0 && clock.now() < deadline) {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, DRAIN_POLL_MS));
  }
  return server.pendingRequests;
}

/** What the server's drain found. */
export interface DrainReport {
  /** Requests in flight when the drain began: those it waited for. */
  inFlight: number;
  /** Those still running at the deadline: the caller closes their connections. */
  cut: number;
}

/** `requestsEnded`, reporting how many requests there were to wait for. */
export async function drainRequests(
  server: DrainableServer,
  timeoutMs: number,
  clock: Clock,
): Promise<DrainReport> {
  const inFlight = server.pendingRequests;
  return { inFlight, cut: await requestsEnded(server, timeoutMs, clock) };
}
