/**
 * Per-tenant rate limits (CONTRACT §1: 429 `rate_limited` with `Retry-After`). One token bucket per
 * (tenant, route class), per (tenant, source) for webhooks. Checked once per request, as soon as
 * the tenant is known and before the body is read or any work is queued: in the auth plugin for
 * token-bearing routes, in the webhook route once the source and tenant are known.
 *
 * A refusal is held `holdMs` before it is answered (never past its Retry-After): a client that
 * honours Retry-After waits longer than that anyway, and one that ignores it and retries at once
 * on its connections gets a few refusals a second on each instead of thousands, which is what
 * keeps its neighbours' latency (test/soak/noisy-neighbour.ts). At most MAX_HELD refusals are
 * held at once; past that they are answered at once, so holding never costs unbounded memory.
 */
import { RateLimited } from "../errors/domain-errors.ts";
import type { Clock } from "../runtime/clock.ts";
import type { RateClass, RateLimit, RateLimitSettings } from "./rate-limit-settings.ts";
import { TokenBuckets } from "./token-buckets.ts";

/** Refusals held at once at most. */
export const MAX_HELD = 1000;

export class RateLimiter {
  private readonly buckets: TokenBuckets;
  private held = 0;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly clock: Clock,
    /** Hears each refusal's route class (the metrics' `memory_runtime_rate_limited_total`). */
    private readonly onRefused?: (rateClass: RateClass) => void,
  ) {
    this.buckets = new TokenBuckets(clock, settings.maxBuckets);
  }

  /**
   * Takes one request from the tenant's bucket of that class: undefined when admitted (no await
   * on the common path), else a promise that rejects with RateLimited once the refusal's hold is over.
   */
  admit(tenantId: string, rateClass: RateClass, source?: string): Promise<never> | undefined {
    const limit = this.limitOf(tenantId, rateClass);
    if (!limit) return undefined;
    const key = source === undefined ? `${tenantId}:${rateClass}` : `${tenantId}:${rateClass}:${source}`;
    const waitSeconds = this.buckets.take(key, limit);
    if (waitSeconds === 0) return undefined;
    this.onRefused?.(rateClass);
    // Never held past the Retry-After it announces (whole seconds, at least 1).
    const announcedMs = Math.max(1, Math.ceil(waitSeconds)) * 1000;
    const holdMs = this.held < MAX_HELD ? Math.min(this.settings.holdMs, announcedMs) : 0;
    const what = source === undefined ? `${rateClass} requests` : `${source} webhook deliveries`;
    const refusal = new RateLimited(
      `the tenant's limit of ${limit.perSecond}/s (burst ${limit.burst}) for ${what} is used up; retry later`,
      waitSeconds - holdMs / 1000,
    );
    return holdMs > 0 ? this.hold(refusal, holdMs) : Promise.reject(refusal);
  }

  /** Refusals being held now (at most MAX_HELD). */
  get heldCount(): number {
    return this.held;
  }

  private hold(refusal: RateLimited, holdMs: number): Promise<never> {
    this.held++;
    return new Promise<never>((_, reject) => {
      this.clock.setTimeout(() => {
        this.held--;
        reject(refusal);
      }, holdMs);
    });
  }

  /** Buckets held now (bounded by the settings' `maxBuckets`). */
  get bucketCount(): number {
    return this.buckets.size;
  }

  private limitOf(tenantId: string, rateClass: RateClass): RateLimit | null {
    if (!this.settings.enabled) return null;
    const override = this.settings.tenants.get(tenantId);
    if (override && rateClass in override) return override[rateClass] ?? null;
    return this.settings.classes[rateClass];
  }
}

/**
 * The class of a token-bearing request, from its method and path: operator routes, MCP, search,
 * then reads (GET, the live stream included: it is counted when it opens) and writes (the rest:
 * creates, batches, retractions). Webhook deliveries are checked by their route, not here.
 */
export function rateClassOf(method: string, path: string): RateClass {
  if (path.startsWith("/admin/")) return "admin";
  if (path === "/mcp") return "mcp";
  // A context pack is a search (or two) and a packing.
  if (path === "/memory/search" || path === "/memory/context") return "search";
  return method === "GET" || method === "HEAD" ? "read" : "write";
}
