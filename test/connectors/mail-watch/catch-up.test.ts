import { describe, expect, test } from "bun:test";
import { CatchUpQueue, MAX_WAITING } from "../../../actors/connectors/mail-watch/catch-up.ts";
import { Backoff } from "../../../src/connectors/backoff.ts";
import { ManualClock } from "../../../src/runtime/clock.ts";

const NOW = Date.UTC(2026, 10, 21, 10, 0, 0);

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
