/**
 * When the sentence model's background upgrade (`tiered`) may take its next batch: only while the
 * service is quiet, so the model's worker does not take a core from the requests (measured: while
 * it upgraded, search p99 at 100k went from 14 to 149 ms and webhook throughput fell to 0.56× of
 * `hash`). The vectors it replaces are already searchable (the static tier's), so waiting costs
 * quality for a while, never findability.
 *
 * - Quiet: no request in flight and none arrived or answered for `quietMs`: a batch starts now.
 * - Busy: the batch waits; it is asked again when the quiet window could be over.
 * - Starvation guard: after `starvedAfterMs` of continuous load, one batch per `starvedEveryMs`
 *   starts anyway, so the backlog still drains under steady load (a batch of the model is a couple
 *   of chunks of ≤ 400 characters, tens of milliseconds: a few per cent of one core).
 */
import type { Clock } from "../runtime/clock.ts";
import type { ForegroundSignal } from "../runtime/foreground-load.ts";

export interface PacingLimits {
  quietMs: number;
  starvedAfterMs: number;
  starvedEveryMs: number;
}

/** The runtime's pacing: 50 ms of quiet; under continuous load, after 5 s, one batch every 500 ms. */
export const UPGRADE_PACING: PacingLimits = { quietMs: 50, starvedAfterMs: 5_000, starvedEveryMs: 500 };

export class UpgradePacing {
  /** When the load began, as the pacing saw it (undefined while quiet). */
  private busySince: number | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly load: ForegroundSignal,
    private readonly limits: PacingLimits = UPGRADE_PACING,
  ) {}

  /** 0: a batch may start now (call `started`); otherwise the milliseconds to wait before asking again. */
  wait(): number {
    const { quietMs, starvedAfterMs, starvedEveryMs } = this.limits;
    const now = this.clock.now();
    const quietFor = now - this.load.lastActiveAt;
    if (this.load.inFlight === 0 && quietFor >= quietMs) {
      this.busySince = undefined;
      return 0;
    }
    this.busySince ??= now;
    const guardAt = Math.max(this.busySince + starvedAfterMs, this.lastStart + starvedEveryMs);
    if (now - this.busySince >= starvedAfterMs && now >= guardAt) return 0;
    const quietAt = this.load.inFlight > 0 ? now + quietMs : now + quietMs - quietFor;
    return Math.max(1, Math.min(quietAt, guardAt) - now);
  }

  started(): void {
    this.lastStart = this.clock.now();
  }
}
