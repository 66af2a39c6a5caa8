/**
 * How busy the service is with requests, as cheaply as it can be told: the requests in flight and
 * when one last arrived or was answered. Counted in the one place requests are already observed
 * (src/http/telemetry-plugin.ts: two integer updates and two clock reads a request), read by work
 * that should yield to them (the sentence model's background upgrade, src/embedding/upgrade-pacing.ts).
 */
import type { Clock } from "./clock.ts";

/** What a reader of the load sees. */
export interface ForegroundSignal {
  /** Requests arrived and not answered yet (a streamed body counts until its headers only). */
  readonly inFlight: number;
  /** Epoch ms of the last arrival or answer; -Infinity before the first request. */
  readonly lastActiveAt: number;
}

/**
 * Probes and scrapes are not load: an orchestrator or a dashboard polling health every few
 * milliseconds must not hold the background work back (a path suffix: no URL parsed per request).
 */
const NOT_LOAD = ["/healthz", "/livez", "/readyz", "/metrics"];

export class ForegroundLoad implements ForegroundSignal {
  inFlight = 0;
  lastActiveAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  /** Counts a request arriving, unless it is a probe: whether it counted (then `answered` follows). */
  arrived(url: string): boolean {
    const end = url.indexOf("?");
    const path = end === -1 ? url : url.slice(0, end);
    if (NOT_LOAD.some((suffix) => path.endsWith(suffix))) return false;
    this.inFlight++;
    this.lastActiveAt = this.clock.now();
    return true;
  }

  answered(): void {
    // Never below 0: an answer counted twice must not hide the next request.
    if (this.inFlight > 0) this.inFlight--;
    this.lastActiveAt = this.clock.now();
  }
}
