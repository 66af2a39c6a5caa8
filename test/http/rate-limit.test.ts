/** The rate limiter's parts: token buckets on the injected clock, route classes, the limiter itself. */
import { describe, expect, test } from "bun:test";
import { RateLimited } from "../../src/errors/domain-errors.ts";
import { MAX_HELD, RateLimiter, rateClassOf } from "../../src/http/rate-limit.ts";
import { DEFAULT_CLASS_LIMITS, type RateLimitSettings } from "../../src/http/rate-limit-settings.ts";
import { TokenBuckets } from "../../src/http/token-buckets.ts";
import { type Clock, ManualClock } from "../../src/runtime/clock.ts";

const TENANT_A = "01JDB2X6J3KQ5W8Z3M4N7P9R2A";
const TENANT_B = "01JDB2X6J3KQ5W8Z3M4N7P9R2B";

describe("TokenBuckets", () => {
  test("a full bucket gives `burst` tokens, then says how long until the next one", () => {
    const buckets = new TokenBuckets(new ManualClock(), 100);
    const limit = { perSecond: 4, burst: 3 };
    expect([1, 2, 3].map(() => buckets.take("k", limit))).toEqual([0, 0, 0]);
    expect(buckets.take("k", limit)).toBe(0.25);
  });

  test("it refills at its rate on the injected clock, never above its burst", () => {
    const clock = new ManualClock();
    const buckets = new TokenBuckets(clock, 100);
    const limit = { perSecond: 0.5, burst: 2 };
    buckets.take("k", limit);
    buckets.take("k", limit);
    expect(buckets.take("k", limit)).toBe(2);
    clock.advance(1999);
    expect(buckets.take("k", limit)).toBeCloseTo(0.001, 6);
    clock.advance(1);
    expect(buckets.take("k", limit)).toBe(0);
    clock.advance(3_600_000);
    expect([1, 2, 3].map(() => buckets.take("k", limit) > 0)).toEqual([false, false, true]);
  });

  test("a clock set back (the system clock can be) neither drains nor fills a bucket", () => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now, setTimeout: () => ({ cancel: () => undefined }) };
    const buckets = new TokenBuckets(clock, 100);
    const limit = { perSecond: 1, burst: 2 };
    buckets.take("k", limit);
    now -= 60_000;
    expect(buckets.take("k", limit)).toBe(0);
    expect(buckets.take("k", limit)).toBe(1);
  });

  test("buckets idle long enough to be full again are dropped", () => {
    const clock = new ManualClock();
    const buckets = new TokenBuckets(clock, 10_000);
    const limit = { perSecond: 10, burst: 10 };
    for (let i = 0; i < 500; i++) buckets.take(`idle-${i}`, limit);
    expect(buckets.size).toBe(500);
    clock.advance(100); // one token spent, refilled in 100 ms
    for (let i = 0; i < 250; i++) buckets.take("busy", limit);
    expect(buckets.size).toBe(1);
  });

  test("past maxBuckets the least recently used go, so memory stays bounded", () => {
    const buckets = new TokenBuckets(new ManualClock(), 100);
    const limit = { perSecond: 1, burst: 5 };
    for (let i = 0; i < 10_000; i++) buckets.take(`k-${i}`, limit);
    expect(buckets.size).toBe(100);
    // The most recent keys are kept: their state is the one that matters.
    for (let i = 0; i < 4; i++) buckets.take("k-9999", limit);
    expect(buckets.take("k-9999", limit)).toBeGreaterThan(0);
  });
});

describe("rateClassOf", () => {
  test("operator routes, MCP, search, reads and writes", () => {
    expect(rateClassOf("GET", "/admin/tenants")).toBe("admin");
    expect(rateClassOf("POST", "/admin/webhooks/replay/x/y")).toBe("admin");
    expect(rateClassOf("POST", "/mcp")).toBe("mcp");
    expect(rateClassOf("POST", "/memory/search")).toBe("search");
    expect(rateClassOf("POST", "/memory/context")).toBe("search");
    expect(rateClassOf("GET", "/memory/facts")).toBe("read");
    expect(rateClassOf("GET", "/memory/stream")).toBe("read");
    expect(rateClassOf("GET", "/tenants/me")).toBe("read");
    expect(rateClassOf("POST", "/memory/facts/batch")).toBe("write");
    expect(rateClassOf("DELETE", "/memory/facts/0123abcd")).toBe("write");
  });
});

function limiterWith(over: Partial<RateLimitSettings>, clock = new ManualClock()): RateLimiter {
  const settings: RateLimitSettings = {
    enabled: true,
    classes: { ...DEFAULT_CLASS_LIMITS, read: { perSecond: 1, burst: 1 } },
    tenants: new Map(),
    maxBuckets: 1000,
    holdMs: 0,
    ...over,
  };
  return new RateLimiter(settings, clock);
}

/** The refusal `admit` answered (a promise that rejects), awaited. */
async function refusal(answer: Promise<never> | undefined): Promise<RateLimited> {
  expect(answer).toBeInstanceOf(Promise);
  const error = await answer!.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RateLimited);
  return error as RateLimited;
}

describe("RateLimiter", () => {
  test("admitted is undefined (nothing to await); a used-up bucket is a RateLimited: 429, Retry-After ≥ 1 s", async () => {
    const limiter = limiterWith({ classes: { ...DEFAULT_CLASS_LIMITS, read: { perSecond: 4, burst: 1 } } });
    expect(limiter.admit(TENANT_A, "read")).toBeUndefined();
    const error = await refusal(limiter.admit(TENANT_A, "read"));
    expect({ status: error.status, code: error.code, retryAfter: error.headers["retry-after"] }).toEqual({
      status: 429,
      code: "rate_limited",
      retryAfter: "1",
    });
    expect(error.message).toContain("read requests");
  });

  test("buckets are per tenant and per class", async () => {
    const limiter = limiterWith({});
    expect(limiter.admit(TENANT_A, "read")).toBeUndefined();
    await refusal(limiter.admit(TENANT_A, "read"));
    expect(limiter.admit(TENANT_B, "read")).toBeUndefined();
    expect(limiter.admit(TENANT_A, "write")).toBeUndefined();
  });

  test("webhook buckets are per tenant and source", async () => {
    const limiter = limiterWith({
      classes: { ...DEFAULT_CLASS_LIMITS, webhook: { perSecond: 1, burst: 1 } },
    });
    expect(limiter.admit(TENANT_A, "webhook", "data")).toBeUndefined();
    expect((await refusal(limiter.admit(TENANT_A, "webhook", "data"))).message).toContain("data webhook");
    expect(limiter.admit(TENANT_A, "webhook", "crm")).toBeUndefined();
    expect(limiter.admit(TENANT_B, "webhook", "data")).toBeUndefined();
  });

  test("a tenant's override wins for the classes it names, `off` included; the others keep the defaults", async () => {
    const tenants = new Map([[TENANT_B, { read: null, write: { perSecond: 1, burst: 1 } }]]);
    const limiter = limiterWith({ tenants });
    const reads = Array.from({ length: 50 }, () => limiter.admit(TENANT_B, "read"));
    expect(reads.every((r) => r === undefined)).toBe(true);
    expect(limiter.admit(TENANT_B, "write")).toBeUndefined();
    await refusal(limiter.admit(TENANT_B, "write"));
    expect(limiter.admit(TENANT_A, "read")).toBeUndefined();
    await refusal(limiter.admit(TENANT_A, "read"));
  });

  test("switched off, nothing is limited and no bucket is kept", () => {
    const limiter = limiterWith({ enabled: false });
    const answers = Array.from({ length: 50 }, () => limiter.admit(TENANT_A, "read"));
    expect(answers.every((r) => r === undefined)).toBe(true);
    expect(limiter.bucketCount).toBe(0);
  });
});

describe("held refusals", () => {
  test("a refusal is answered after holdMs on the injected clock; Retry-After counts from then", async () => {
    const clock = new ManualClock();
    const limiter = limiterWith({ holdMs: 250 }, clock);
    limiter.admit(TENANT_A, "read");
    const held = limiter.admit(TENANT_A, "read");
    // Its only way to settle is the hold's timer: due in 250 ms, not yet fired.
    expect({ held: limiter.heldCount, due: clock.dueTimes() }).toEqual({ held: 1, due: [clock.now() + 250] });
    clock.advance(250);
    expect(limiter.heldCount).toBe(0);
    // 1 s to the next token, 0.25 s of it spent holding: 0.75 s, announced as 1.
    expect((await refusal(held)).headers["retry-after"]).toBe("1");
  });

  test("a refusal is never held past the Retry-After it announces", async () => {
    const clock = new ManualClock();
    const limiter = limiterWith(
      { holdMs: 5000, classes: { ...DEFAULT_CLASS_LIMITS, read: { perSecond: 4, burst: 1 } } },
      clock,
    );
    limiter.admit(TENANT_A, "read");
    const held = limiter.admit(TENANT_A, "read");
    expect(clock.dueTimes()).toEqual([clock.now() + 1000]);
    clock.advance(1000);
    await refusal(held);
  });

  test("at most MAX_HELD are held at once; past that a refusal is answered at once", async () => {
    const clock = new ManualClock();
    const limiter = limiterWith({ holdMs: 250 }, clock);
    limiter.admit(TENANT_A, "read");
    const held = Array.from({ length: MAX_HELD }, () => limiter.admit(TENANT_A, "read"));
    expect(limiter.heldCount).toBe(MAX_HELD);
    await refusal(limiter.admit(TENANT_A, "read"));
    expect({ held: limiter.heldCount, timers: clock.pending() }).toEqual({
      held: MAX_HELD,
      timers: MAX_HELD,
    });
    clock.advance(250);
    const settled = await Promise.allSettled(held);
    expect(settled.every((s) => s.status === "rejected" && s.reason instanceof RateLimited)).toBe(true);
    expect(limiter.heldCount).toBe(0);
  });
});
