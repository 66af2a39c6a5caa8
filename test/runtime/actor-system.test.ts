import { describe, expect, test } from "bun:test";
import { type ActorFailure, ActorSystem } from "../../src/runtime/actor-system.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { Later, later } from "../../src/runtime/later.ts";
import type { Behaviour } from "../../src/runtime/protocol.ts";
import { pollUntil } from "../helpers/poll.ts";
import { afterPendingMicrotasks } from "../helpers/turn.ts";

class DomainError extends Error {}

type CounterProtocol = {
  inc: { msg: { by: number }; reply: number };
  get: { msg: object; reply: number };
  corrupt: { msg: object; reply: never };
  refuse: { msg: object; reply: never };
  slow: { msg: { gate: Promise<number> }; reply: number };
  wait: { msg: { gate: Promise<void>; label: string }; reply: string };
};

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A counter actor whose durable state lives in `disk` (per key) and whose working state lives in
 * memory, so a restart is visible: the working state is rebuilt from disk.
 */
function fixture(opts: { idleMs?: number; stopGate?: () => Promise<void>; maxActive?: number } = {}) {
  const clock = new ManualClock(0);
  const disk = new Map<string, number>();
  const events: string[] = [];
  const failures: ActorFailure[] = [];
  let starts = 0;
  let stops = 0;
  const system = new ActorSystem({
    clock,
    idleMs: opts.idleMs ?? 1000,
    maxActive: opts.maxActive,
    isCrash: (error) => !(error instanceof DomainError),
    onFailure: (f) => failures.push(f),
  });
  const kind = system.kind<CounterProtocol>("counter", async (key): Promise<Behaviour<CounterProtocol>> => {
    starts++;
    events.push(`start ${key}`);
    let count = disk.get(key) ?? 0;
    return {
      handlers: {
        inc: ({ by }) => {
          count += by;
          disk.set(key, count);
          return count;
        },
        get: () => count,
        corrupt: () => {
          count = -999;
          throw new TypeError("invariant broken");
        },
        refuse: () => {
          throw new DomainError("not allowed");
        },
        slow: ({ gate }) => later(gate),
        wait: async ({ gate, label }) => {
          await gate;
          events.push(`handled ${label}`);
          return label;
        },
      },
      stop: async () => {
        events.push(`stop-begin ${key}`);
        await opts.stopGate?.();
        stops++;
        events.push(`stop-end ${key}`);
      },
    };
  });
  return {
    clock,
    disk,
    events,
    failures,
    system,
    kind,
    get starts() {
      return starts;
    },
    get stops() {
      return stops;
    },
  };
}

describe("ActorSystem", () => {
  test("an address reaches a kind made after it, by name, when each message is sent", async () => {
    const system = new ActorSystem({ clock: new ManualClock(0), idleMs: 1000 });
    const address = system.address<{ ping: { msg: { n: number }; reply: string } }>("late");
    const ref = address.ref("k");
    expect(() => address.tell("k", { type: "ping", n: 0 })).toThrow('no actor kind "late"');
    system.kind<{ ping: { msg: { n: number }; reply: string } }>("late", (key) => ({
      handlers: { ping: ({ n }) => `${key}:${n}` },
    }));
    expect(await address.ask("k", { type: "ping", n: 1 })).toBe("k:1");
    expect(await ref.ask({ type: "ping", n: 2 })).toBe("k:2");
    expect(ref.key).toBe("k");
    await system.stopAll();
  });

  test("starts an actor lazily, on its first message, once per key", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    expect(f.starts).toBe(0);
    expect(f.kind.isActive("a")).toBe(false);
    expect(await ref.ask({ type: "inc", by: 2 })).toBe(2);
    expect(await ref.ask({ type: "inc", by: 3 })).toBe(5);
    expect(f.starts).toBe(1);
    expect(f.kind.active()).toEqual(["a"]);
    await f.kind.ref("b").ask({ type: "get" });
    expect(f.starts).toBe(2);
    expect(f.kind.active().sort()).toEqual(["a", "b"]);
    await f.system.stopAll();
  });

  test("passivates after idleMs without messages, and starts fresh (from disk) on the next one", async () => {
    const f = fixture({ idleMs: 1000 });
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 7 });
    f.clock.advance(999);
    expect(f.kind.isActive("a")).toBe(true);
    f.clock.advance(1);
    // The idle timer passivated it (checked before passivate(), which would otherwise do it itself).
    expect(f.kind.isActive("a")).toBe(false);
    await f.kind.passivate("a"); // waits for the stop already under way
    expect(f.kind.isActive("a")).toBe(false);
    expect(f.stops).toBe(1);
    expect(await ref.ask({ type: "get" })).toBe(7);
    expect(f.starts).toBe(2);
    await f.system.stopAll();
  });

  test("an actor busy when its idle time is up is looked at again an idle period later: a far jump of the clock ends", async () => {
    const f = fixture({ idleMs: 1000 });
    const ref = f.kind.ref("a");
    const gate = deferred();
    const busy = ref.ask({ type: "wait", gate: gate.promise, label: "long" });
    await afterPendingMicrotasks(); // the message has started and holds the mailbox
    f.clock.advance(30 * 86_400_000); // a month, in timers of one idle period each
    expect(f.clock.pending()).toBe(1);
    expect(f.kind.isActive("a")).toBe(true);
    gate.resolve();
    expect(await busy).toBe("long");
    f.clock.advance(1000);
    expect(f.kind.isActive("a")).toBe(false);
    await f.system.stopAll();
  });

  test("each message pushes passivation back by idleMs", async () => {
    const f = fixture({ idleMs: 1000 });
    const ref = f.kind.ref("a");
    await ref.ask({ type: "get" });
    f.clock.advance(600);
    await ref.ask({ type: "get" });
    f.clock.advance(600);
    expect(f.kind.isActive("a")).toBe(true);
    f.clock.advance(399);
    expect(f.kind.isActive("a")).toBe(true);
    f.clock.advance(1);
    expect(f.kind.isActive("a")).toBe(false);
    await f.kind.passivate("a");
    expect(f.stops).toBe(1);
  });

  test("idleMs Infinity keeps an actor alive", async () => {
    const f = fixture({ idleMs: Number.POSITIVE_INFINITY });
    await f.kind.ref("a").ask({ type: "get" });
    f.clock.advance(365 * 86_400_000);
    expect(f.kind.isActive("a")).toBe(true);
    expect(f.clock.pending()).toBe(0);
    await f.system.stopAll();
  });

  test("a fresh start after passivation waits until the old instance has stopped", async () => {
    const gate = deferred();
    let gated = true;
    const f = fixture({ idleMs: 100, stopGate: () => (gated ? gate.promise : Promise.resolve()) });
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 1 });
    f.clock.advance(100);
    await pollUntil(
      () => f.events.join(","),
      (e) => e === "start a,stop-begin a",
    );
    // The stop has begun and is blocked; a new message arrives meanwhile. Starting an actor is only
    // promise steps, so once the pending microtasks have run a start that did not wait would show.
    const reply = ref.ask({ type: "inc", by: 1 });
    await afterPendingMicrotasks();
    expect(f.starts).toBe(1);
    expect(f.events).toEqual(["start a", "stop-begin a"]);
    gated = false;
    gate.resolve();
    expect(await reply).toBe(2);
    expect(f.events).toEqual(["start a", "stop-begin a", "stop-end a", "start a"]);
    await f.system.stopAll();
  });

  test("a crash (non-domain error) stops the actor, reports it and restarts it with state rebuilt", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 5 });
    await expect(ref.ask({ type: "corrupt" })).rejects.toThrow("invariant broken");
    expect(f.stops).toBe(1);
    expect(f.kind.restarts).toBe(1);
    expect(f.failures).toHaveLength(1);
    expect(f.failures[0]).toMatchObject({ kind: "counter", key: "a", type: "corrupt" });
    // The corrupted working state is gone: the next message starts a fresh behaviour from disk.
    expect(await ref.ask({ type: "get" })).toBe(5);
    expect(f.starts).toBe(2);
    await f.system.stopAll();
  });

  test("messages queued behind a crash are handled by the restarted actor", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 1 });
    const crash = ref.ask({ type: "corrupt" });
    const after = ref.ask({ type: "inc", by: 1 });
    await expect(crash).rejects.toThrow();
    expect(await after).toBe(2);
    expect(f.starts).toBe(2);
    await f.system.stopAll();
  });

  test("a domain error (isCrash false) is an ordinary reply: no restart, state kept", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 4 });
    await expect(ref.ask({ type: "refuse" })).rejects.toBeInstanceOf(DomainError);
    expect(f.kind.restarts).toBe(0);
    expect(f.stops).toBe(0);
    expect(f.failures).toHaveLength(0);
    expect(await ref.ask({ type: "get" })).toBe(4);
    expect(f.starts).toBe(1);
    await f.system.stopAll();
  });

  test("a failed tell is reported to onFailure, never lost", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    ref.tell({ type: "refuse" });
    await pollUntil(
      () => f.failures.length,
      (n) => n > 0,
    );
    expect(f.failures).toContainEqual(
      expect.objectContaining({
        kind: "counter",
        key: "a",
        type: "refuse",
        via: "tell",
        error: expect.any(DomainError),
      }),
    );
    // The mailbox carries on.
    expect(await ref.ask({ type: "inc", by: 1 })).toBe(1);
    await f.system.stopAll();
  });

  test("a crashing tell is reported, and the actor restarts", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    await ref.ask({ type: "inc", by: 3 });
    ref.tell({ type: "corrupt" });
    await pollUntil(
      () => f.failures.filter((x) => x.via === "tell").length,
      (n) => n > 0,
    );
    expect(await ref.ask({ type: "get" })).toBe(3);
    expect(f.kind.restarts).toBe(1);
    await f.system.stopAll();
  });

  test("a tell with no handler is reported", async () => {
    const f = fixture();
    f.kind.ref("a").tell({ type: "nope" } as never);
    await pollUntil(
      () => f.failures.length,
      (n) => n > 0,
    );
    expect(f.failures[0]).toMatchObject({ key: "a", type: "nope", via: "tell" });
    await f.system.stopAll();
  });

  test("a factory that throws is reported and the next message tries again", async () => {
    const clock = new ManualClock(0);
    const failures: ActorFailure[] = [];
    let attempts = 0;
    const system = new ActorSystem({ clock, idleMs: 1000, onFailure: (x) => failures.push(x) });
    const kind = system.kind<{ ping: { msg: object; reply: string } }>("flaky", () => {
      attempts++;
      if (attempts === 1) throw new Error("cannot open");
      return { handlers: { ping: () => "pong" } };
    });
    await expect(kind.ref("x").ask({ type: "ping" })).rejects.toThrow("cannot open");
    expect(failures).toContainEqual(expect.objectContaining({ via: "start", key: "x" }));
    expect(await kind.ref("x").ask({ type: "ping" })).toBe("pong");
    await system.stopAll();
  });

  test("a Later reply lets the mailbox move on before the reply resolves", async () => {
    const f = fixture();
    const ref = f.kind.ref("a");
    const gate = deferred<number>();
    let slowDone = false;
    const slow = ref.ask({ type: "slow", gate: gate.promise }).then((v) => {
      slowDone = true;
      return v;
    });
    // The next message is handled while the first reply is still pending.
    expect(await ref.ask({ type: "inc", by: 1 })).toBe(1);
    expect(slowDone).toBe(false);
    gate.resolve(42);
    expect(await slow).toBe(42);
    await f.system.stopAll();
  });

  test("a rejected Later reaches the asker", async () => {
    const f = fixture();
    const gate = deferred<number>();
    const slow = f.kind.ref("a").ask({ type: "slow", gate: gate.promise });
    gate.reject(new DomainError("commit failed"));
    await expect(slow).rejects.toThrow("commit failed");
    expect(new Later(Promise.reject(new Error("unobserved")))).toBeInstanceOf(Later);
    await f.system.stopAll();
  });

  test("stopAll drains every mailbox before stopping each actor", async () => {
    const f = fixture();
    const gates = [deferred(), deferred(), deferred()];
    const replies = [
      f.kind.ref("a").ask({ type: "wait", gate: gates[0]!.promise, label: "a1" }),
      f.kind.ref("a").ask({ type: "wait", gate: gates[1]!.promise, label: "a2" }),
      f.kind.ref("b").ask({ type: "wait", gate: gates[2]!.promise, label: "b1" }),
    ];
    let stopped = false;
    const stopping = f.system.stopAll().then(() => {
      stopped = true;
    });
    // Every step stopAll could take without the gates has been taken: it is still waiting on them.
    await afterPendingMicrotasks();
    expect(stopped).toBe(false);
    expect(f.events.filter((e) => e.startsWith("stop-begin"))).toEqual([]);
    for (const g of gates) g.resolve();
    await stopping;
    expect(await Promise.all(replies)).toEqual(["a1", "a2", "b1"]);
    expect(f.stops).toBe(2);
    expect(f.events.indexOf("handled a2")).toBeLessThan(f.events.indexOf("stop-begin a"));
    expect(f.events.indexOf("handled b1")).toBeLessThan(f.events.indexOf("stop-begin b"));
    expect(f.kind.active()).toEqual([]);
  });

  test("stopAll also waits for a passivation already under way", async () => {
    const gate = deferred();
    const f = fixture({ idleMs: 10, stopGate: () => gate.promise });
    await f.kind.ref("a").ask({ type: "get" });
    f.clock.advance(10);
    expect(f.kind.isActive("a")).toBe(false);
    await pollUntil(
      () => f.events.join(","),
      (e) => e === "start a,stop-begin a",
    );
    let stopped = false;
    const stopping = f.system.stopAll().then(() => {
      stopped = true;
    });
    await afterPendingMicrotasks();
    expect(stopped).toBe(false);
    expect(f.stops).toBe(0);
    gate.resolve();
    await stopping;
    expect(f.stops).toBe(1);
  });

  test("maxActive: starting one more actor passivates the least recently used, idle one first", async () => {
    const f = fixture({ maxActive: 2 });
    await f.kind.ask("a", { type: "inc", by: 1 });
    await f.kind.ask("b", { type: "inc", by: 1 });
    await f.kind.ask("a", { type: "inc", by: 1 }); // a is now more recent than b
    await f.kind.ask("c", { type: "inc", by: 1 });
    expect(f.kind.active().sort()).toEqual(["a", "c"]);
    expect(f.events).toContain("stop-end b");
    expect(f.events.indexOf("stop-end b")).toBeLessThan(f.events.indexOf("start c"));
    // b's state was saved on stop and comes back on its next start.
    expect(await f.kind.ask("b", { type: "get" })).toBe(1);
    expect(f.kind.active().length).toBe(2);
  });

  test("maxActive: a busy actor is passed over for an idle one", async () => {
    const f = fixture({ maxActive: 2 });
    const gate = deferred();
    await f.kind.ask("busy", { type: "inc", by: 1 });
    await f.kind.ask("idle", { type: "inc", by: 1 });
    const waiting = f.kind.ask("busy", { type: "wait", gate: gate.promise, label: "late" });
    // "busy" is the least recently used by order of first use, but it has a message in flight.
    await f.kind.ask("new", { type: "inc", by: 1 });
    expect(f.kind.active().sort()).toEqual(["busy", "new"]);
    gate.resolve();
    expect(await waiting).toBe("late");
  });

  test("maxActive: a newcomer waits for its evicted neighbour's stop before it starts", async () => {
    const stopGate = deferred();
    const stopEntered = deferred();
    const f = fixture({
      maxActive: 1,
      stopGate: () => {
        stopEntered.resolve();
        return stopGate.promise;
      },
    });
    await f.kind.ask("a", { type: "inc", by: 1 });
    const b = f.kind.ask("b", { type: "inc", by: 5 });
    await stopEntered.promise;
    expect(f.events).toEqual(["start a", "stop-begin a"]);
    stopGate.resolve();
    expect(await b).toBe(5);
    expect(f.events).toEqual(["start a", "stop-begin a", "stop-end a", "start b"]);
  });

  test("a start that fails holds no slot of a bounded kind", async () => {
    const clock = new ManualClock(0);
    let fail = true;
    const system = new ActorSystem({ clock, idleMs: 1000, maxActive: 1, onFailure: () => undefined });
    const kind = system.kind<{ ping: { msg: object; reply: string } }>("flaky", (key) => {
      if (fail && key === "bad") throw new Error("cannot open");
      return { handlers: { ping: () => key } };
    });
    await expect(kind.ask("bad", { type: "ping" })).rejects.toThrow("cannot open");
    expect(kind.active()).toEqual([]);
    expect(await kind.ask("good", { type: "ping" })).toBe("good");
    fail = false;
    expect(await kind.ask("bad", { type: "ping" })).toBe("bad");
    expect(kind.active()).toEqual(["bad"]);
  });

  test("kinds can override the system options (e.g. never passivate)", async () => {
    const clock = new ManualClock(0);
    const system = new ActorSystem({ clock, idleMs: 10, onFailure: () => undefined });
    const kind = system.kind<{ ping: { msg: object; reply: string } }>(
      "pinned",
      () => ({ handlers: { ping: () => "pong" } }),
      { idleMs: Number.POSITIVE_INFINITY },
    );
    await kind.ref("x").ask({ type: "ping" });
    clock.advance(1_000_000);
    expect(kind.isActive("x")).toBe(true);
    await system.stopAll();
    expect(kind.isActive("x")).toBe(false);
  });
});
