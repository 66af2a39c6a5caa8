import { describe, expect, test } from "bun:test";
import { afterCommits, type CommitObserver } from "../../src/runtime/after-commits.ts";
import { Later, later } from "../../src/runtime/later.ts";

function deferred() {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An observer whose pending reads are set by the test. */
function observer(): CommitObserver & { observe(p: Promise<void>): void } {
  let observed: Promise<void>[] = [];
  return {
    observe: (p) => observed.push(p),
    takeObserved: () => {
      const out = observed;
      observed = [];
      return out;
    },
  };
}

/** Whether `p` has settled, checked after pending callbacks have run. */
async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return settled;
}

const replyOf = (out: unknown): Promise<unknown> =>
  Promise.resolve(out).then((v) => (v instanceof Later ? v.promise : v));

describe("afterCommits", () => {
  test("a reply that read nothing pending is returned as it is", () => {
    const o = observer();
    const handlers = afterCommits(o, { get: (_msg: never) => 42 });
    expect(handlers.get(undefined as never)).toBe(42);
  });

  test("a reply built from pending state resolves only after that state's commit", async () => {
    const o = observer();
    const commit = deferred();
    const handlers = afterCommits(o, {
      get: (_msg: never) => {
        o.observe(commit.promise);
        return "from pending";
      },
    });
    const reply = replyOf(handlers.get(undefined as never));
    expect(await settledYet(reply)).toBe(false);
    commit.resolve();
    expect(await reply).toBe("from pending");
  });

  test("a Later reply waits for both its own promise and the observed commits", async () => {
    const o = observer();
    const commit = deferred();
    const own = deferred();
    const handlers = afterCommits(o, {
      write: (_msg: never) => {
        o.observe(commit.promise);
        return later(own.promise.then(() => "written"));
      },
    });
    const reply = replyOf(handlers.write(undefined as never));
    own.resolve();
    expect(await settledYet(reply)).toBe(false);
    commit.resolve();
    expect(await reply).toBe("written");
  });

  test("a failed commit fails the reply that depended on it", async () => {
    const o = observer();
    const commit = deferred();
    const handlers = afterCommits(o, {
      get: (_msg: never) => {
        o.observe(commit.promise);
        return "never sent";
      },
    });
    const reply = replyOf(handlers.get(undefined as never));
    commit.reject(new Error("disk full"));
    await expect(reply).rejects.toThrow("disk full");
  });

  test("an error derived from pending state is also held back until the commit", async () => {
    const o = observer();
    const commit = deferred();
    const handlers = afterCommits(o, {
      refuse: (_msg: never): string => {
        o.observe(commit.promise);
        throw new RangeError("refused");
      },
    });
    const reply = replyOf(handlers.refuse(undefined as never));
    expect(await settledYet(reply)).toBe(false);
    commit.resolve();
    await expect(reply).rejects.toThrow("refused");
  });

  test("observations do not leak from one message into the next", () => {
    const o = observer();
    const handlers = afterCommits(o, {
      touch: (_msg: never) => {
        o.observe(new Promise<void>(() => undefined));
        return 1;
      },
      plain: (_msg: never) => 2,
    });
    expect(handlers.touch(undefined as never)).toBeInstanceOf(Later);
    expect(handlers.plain(undefined as never)).toBe(2);
  });
});
