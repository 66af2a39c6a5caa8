import { describe, expect, test } from "bun:test";
import { Backoff } from "../../src/connectors/backoff.ts";
import { CatchUpQueue, MAX_WAITING } from "../../src/connectors/catch-up.ts";
import {
  boundedServerDelay,
  MAX_SERVER_DELAY_MS,
  parseRetryAfter,
  retryAfterOf,
} from "../../src/connectors/retry-after.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

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

describe("CatchUpQueue", () => {
  function queue() {
    const clock = new ManualClock(NOW);
    const due: number[] = [];
    const q = new CatchUpQueue(clock, new Backoff({ baseMs: 1000, maxMs: 60_000, random: () => 1 }), () =>
      due.push(clock.now()),
    );
    return { clock, due, q };
  }

  test("waits what the server said, else the backoff; the latest wait wins", () => {
    const { clock, due, q } = queue();
    q.add("a", 5000);
    expect(q.nextAt).toBe(NOW + 5000);
    q.add("b");
    // The second failure's backoff step (attempt 1: 2 s) replaces the first wait.
    expect(q.nextAt).toBe(NOW + 2000);
    clock.advance(1999);
    expect(due).toEqual([]);
    clock.advance(1);
    expect(due).toEqual([NOW + 2000]);
    expect(q.nextAt).toBeUndefined();
    expect(q.take()).toEqual(["a", "b"]);
    expect(q.size).toBe(0);
  });

  test("put back ids keep their order and arm a wait only when none is set", () => {
    const { clock, due, q } = queue();
    q.add("a", 3000);
    q.putBack(["b", "a"]);
    expect(q.nextAt).toBe(NOW + 3000);
    expect(q.take()).toEqual(["a", "b"]);
    q.cancel();
    q.putBack(["c"]);
    expect(q.nextAt).toBeDefined();
    clock.advance(60_000);
    expect(due).toHaveLength(1);
    expect(q.take()).toEqual(["c"]);
  });

  test("keeps the newest ids when too many wait, and cancel stops the timer", () => {
    const { clock, due, q } = queue();
    for (let i = 0; i < MAX_WAITING + 5; i++) q.add(`e${i}`, 1000);
    expect(q.size).toBe(MAX_WAITING);
    q.cancel();
    clock.advance(10_000);
    expect(due).toEqual([]);
    expect(q.take()[0]).toBe("e5");
  });
});
