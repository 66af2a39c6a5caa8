/**
 * Token buckets by key, on the injected clock, in bounded memory. A bucket idle long enough to have
 * refilled is the same as no bucket, so it is dropped; past `maxBuckets` the least recently used
 * goes even if not yet full (that key then starts over with a full bucket: lenient, never stricter).
 */
import type { Clock } from "../runtime/clock.ts";
import type { RateLimit } from "./rate-limit-settings.ts";

interface Bucket {
  tokens: number;
  /** When `tokens` was computed (epoch ms). */
  at: number;
  /** When the bucket will be full again if untouched: from then on it can be dropped. */
  fullAt: number;
}

/** Idle buckets looked at per take: the sweep's cost is constant, and it keeps up with new keys. */
const SWEEP_PER_TAKE = 2;

export class TokenBuckets {
  /** Insertion order is recency order: a touched bucket is moved to the end. */
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly maxBuckets: number,
  ) {}

  /** Takes one token: 0 when there was one, else the seconds until there will be (> 0). */
  take(key: string, limit: RateLimit): number {
    const now = this.clock.now();
    const bucket = this.refilled(key, limit, now);
    const waitSeconds = bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) / limit.perSecond;
    if (waitSeconds === 0) bucket.tokens -= 1;
    bucket.fullAt = now + ((limit.burst - bucket.tokens) / limit.perSecond) * 1000;
    this.buckets.set(key, bucket);
    this.sweep(now);
    return waitSeconds;
  }

  /** Buckets held now (for the tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(key: string, limit: RateLimit, now: number): Bucket {
    const bucket = this.buckets.get(key);
    if (!bucket) return { tokens: limit.burst, at: now, fullAt: now };
    this.buckets.delete(key);
    // A clock set back never drains a bucket: elapsed time is at least 0.
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (elapsed / 1000) * limit.perSecond);
    bucket.at = now;
    return bucket;
  }

  private sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_TAKE; i++) {
      const oldest = this.buckets.entries().next().value;
      if (!oldest || oldest[1].fullAt > now) break;
      this.buckets.delete(oldest[0]);
    }
    while (this.buckets.size > this.maxBuckets) {
      const oldestKey = this.buckets.keys().next().value;
      if (oldestKey === undefined) break;
      this.buckets.delete(oldestKey);
    }
  }
}
