/**
 * Time is injected everywhere so tests drive it by hand (no sleeps in tests).
 * `now()` is epoch milliseconds; timers go through the clock so a ManualClock can fire them.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    // Timers must never keep the process (or a test run) alive on their own.
    (t as { unref?: () => void }).unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; `advance` fires due timers in time order. */
export class ManualClock implements Clock {
  private current: number;
  private timers: PendingTimer[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 10, 21, 10, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: PendingTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward, firing every timer that falls due, including ones scheduled while firing. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.current = next.at;
      this.timers = this.timers.filter((t) => t !== next);
      next.fn();
    }
    this.current = target;
  }

  /** Number of live timers, for tests that check a connector scheduled (or cancelled) its next step. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** When the live timers fall due (epoch ms), for tests that wait until something re-armed a timer. */
  dueTimes(): number[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => t.at);
  }

  private nextDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.at > limit) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
