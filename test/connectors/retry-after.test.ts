import { describe, expect, test } from "bun:test";
import {
  boundedServerDelay,
  MAX_SERVER_DELAY_MS,
  parseRetryAfter,
  retryAfterOf,
} from "../../src/connectors/retry-after.ts";

const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

describe("Retry-After", () => {
  test("seconds and IMF-fixdate HTTP dates give the wait from now", () => {
    expect(parseRetryAfter("2", NOW)).toBe(2000);
    expect(parseRetryAfter(" 0 ", NOW)).toBe(0);
    expect(parseRetryAfter(new Date(NOW + 7000).toUTCString(), NOW)).toBe(7000);
    // A date already past asks for no wait at all.
    expect(parseRetryAfter(new Date(NOW - 7000).toUTCString(), NOW)).toBe(0);
  });

  test("anything else is no advice; a huge wait is capped", () => {
    for (const bad of [null, undefined, "", "-1", "1.5", "soon", "2026-11-21T10:00:05Z", "0x10"])
      expect(parseRetryAfter(bad, NOW)).toBeUndefined();
    expect(parseRetryAfter("999999", NOW)).toBe(MAX_SERVER_DELAY_MS);
    expect(parseRetryAfter(new Date(NOW + 48 * 3600_000).toUTCString(), NOW)).toBe(MAX_SERVER_DELAY_MS);
  });

  test("only a 429 or a 503 is read for it", () => {
    const answer = (status: number) => new Response(null, { status, headers: { "retry-after": "3" } });
    expect(retryAfterOf(answer(429), NOW)).toBe(3000);
    expect(retryAfterOf(answer(503), NOW)).toBe(3000);
    expect(retryAfterOf(answer(500), NOW)).toBeUndefined();
    expect(retryAfterOf(answer(301), NOW)).toBeUndefined();
    expect(retryAfterOf(new Response(null, { status: 429 }), NOW)).toBeUndefined();
  });

  test("a Bayeux advice.interval is a bounded number of ms", () => {
    expect(boundedServerDelay(1500)).toBe(1500);
    expect(boundedServerDelay(0)).toBe(0);
    expect(boundedServerDelay(-1)).toBeUndefined();
    expect(boundedServerDelay("1500")).toBeUndefined();
    expect(boundedServerDelay(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(boundedServerDelay(10 * MAX_SERVER_DELAY_MS)).toBe(MAX_SERVER_DELAY_MS);
  });
});
