import { describe, expect, test } from "bun:test";
import { ManualClock, systemClock } from "../../src/runtime/clock.ts";

describe("ManualClock", () => {
  test("starts at the given instant and only moves when advanced", () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(250);
    expect(clock.now()).toBe(1_250);
  });

  test("fires due timers in time order, ties in scheduling order, with now() at each timer's due time", () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    const at = (name: string) => () => fired.push(`${name}@${clock.now()}`);
    clock.setTimeout(at("c"), 30);
    clock.setTimeout(at("a"), 10);
    clock.setTimeout(at("b1"), 20);
    clock.setTimeout(at("b2"), 20);
    clock.setTimeout(at("late"), 100);
    clock.advance(50);
    expect(fired).toEqual(["a@10", "b1@20", "b2@20", "c@30"]);
    expect(clock.now()).toBe(50);
    expect(clock.pending()).toBe(1);
    clock.advance(50);
    expect(fired.at(-1)).toBe("late@100");
    expect(clock.pending()).toBe(0);
  });

  test("a timer is not fired before its due time", () => {
    const clock = new ManualClock(0);
    let fired = false;
    clock.setTimeout(() => {
      fired = true;
    }, 100);
    clock.advance(99);
    expect(fired).toBe(false);
    clock.advance(1);
    expect(fired).toBe(true);
  });

  test("timers scheduled while firing also fire when they fall inside the advance", () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const tick = () => {
      fired.push(clock.now());
      if (fired.length < 10) clock.setTimeout(tick, 10);
    };
    clock.setTimeout(tick, 10);
    clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
    expect(clock.now()).toBe(35);
    clock.advance(100);
    expect(fired).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
  });

  test("a timer scheduled while firing with 0 ms fires at the same instant, after the current one", () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => {
      fired.push(`first@${clock.now()}`);
      clock.setTimeout(() => fired.push(`nested@${clock.now()}`), 0);
    }, 5);
    clock.setTimeout(() => fired.push(`second@${clock.now()}`), 5);
    clock.advance(5);
    expect(fired).toEqual(["first@5", "second@5", "nested@5"]);
  });

  test("cancelled timers never fire and are not pending", () => {
    const clock = new ManualClock(0);
    let fired = 0;
    const handle = clock.setTimeout(() => fired++, 10);
    clock.setTimeout(() => fired++, 20);
    expect(clock.pending()).toBe(2);
    handle.cancel();
    expect(clock.pending()).toBe(1);
    clock.advance(100);
    expect(fired).toBe(1);
  });

  test("negative delays fire at the current time", () => {
    const clock = new ManualClock(500);
    let at = -1;
    clock.setTimeout(() => {
      at = clock.now();
    }, -10);
    clock.advance(0);
    expect(at).toBe(500);
  });
});

describe("systemClock", () => {
  test("now() is wall-clock time and timers fire and can be cancelled", async () => {
    const before = Date.now();
    expect(systemClock.now()).toBeGreaterThanOrEqual(before);
    let cancelledFired = false;
    systemClock
      .setTimeout(() => {
        cancelledFired = true;
      }, 1)
      .cancel();
    // The event waited for is the later timer firing: by then the earlier one, had it not been
    // cancelled, would have fired first.
    const firedAt = await new Promise<number>((resolve) => {
      systemClock.setTimeout(() => resolve(systemClock.now()), 2);
    });
    expect(firedAt).toBeGreaterThan(before);
    expect(cancelledFired).toBe(false);
  });
});
