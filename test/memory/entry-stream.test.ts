import { describe, expect, test } from "bun:test";
import { ChangeFeeds } from "../../src/memory/change-feed.ts";
import {
  type ChangeSource,
  type CloseReason,
  EntryStream,
  type EntryStreamOptions,
  sseComment,
  sseEvent,
} from "../../src/memory/entry-stream.ts";
import type { Change } from "../../src/models/change.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

/** The part of a body reader the tests use (DOM and node:stream/web types disagree on the rest). */
interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

const TENANT = "T";

/** A tenant's log in memory, its live feed, and a source over both. */
class FakeTenant {
  readonly log: Change[] = [];
  readonly feeds = new ChangeFeeds();
  /** While set, `since` waits for it (to commit live changes in the middle of a replay). */
  gate: Promise<void> | undefined;
  sinceCalls = 0;
  ended: string | undefined;
  hidden = new Set<number>();
  failAt: number | undefined;

  commit(count = 1): Change[] {
    const changes: Change[] = [];
    for (let i = 0; i < count; i++) {
      const seq = this.log.length + changes.length + 1;
      changes.push({
        seq,
        at: "2026-11-21T10:00:00.000Z",
        type: "entry.created",
        id: seq.toString(16).padStart(8, "0"),
        category: "fact",
        by: "a",
      });
    }
    this.log.push(...changes);
    this.feeds.publish(TENANT, changes);
    return changes;
  }

  source(): ChangeSource {
    return {
      subscribe: (listener) => this.feeds.subscribe(TENANT, listener),
      since: async (after, limit) => {
        this.sinceCalls++;
        if (this.gate) await this.gate;
        return { changes: this.log.filter((c) => c.seq > after).slice(0, limit), last: this.log.length };
      },
      render: async (change) => {
        if (change.seq === this.failAt) throw new Error("storage failed");
        return this.hidden.has(change.seq) ? undefined : JSON.stringify({ id: change.id });
      },
      endReason: () => this.ended,
    };
  }
}

interface Opened {
  stream: EntryStream;
  reader: ChunkReader;
  closes: CloseReason[];
  /** Reads until `count` events (not comments) arrived, or the body ended. */
  events(count: number): Promise<Array<{ id: number; event: string; data: string }>>;
  /** Reads raw text until `predicate` holds on all read so far, or the body ended. */
  until(predicate: (text: string) => boolean): Promise<string>;
}

function open(tenant: FakeTenant, options: Partial<EntryStreamOptions> & { clock: ManualClock }): Opened {
  const closes: CloseReason[] = [];
  const stream = new EntryStream(tenant.source(), {
    heartbeatMs: 15_000,
    ...options,
    onClose: (reason) => closes.push(reason),
  });
  const reader = stream.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  const readMore = async () => {
    const chunk = await reader.read();
    if (chunk.done) done = true;
    else text += decoder.decode(chunk.value, { stream: true });
  };
  const parsed = () =>
    text
      .split("\n\n")
      .filter((block) => block.startsWith("id: "))
      .map((block) => {
        const [id, event, data] = block.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
        return { id: Number(id), event: event!, data: data! };
      });
  return {
    stream,
    reader,
    closes,
    async events(count) {
      while (parsed().length < count && !done) await readMore();
      return parsed();
    },
    async until(predicate) {
      while (!predicate(text) && !done) await readMore();
      return text;
    },
  };
}

/** Lets promise chains settle (no time passes: only queued microtasks and I/O callbacks run). */
async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

describe("EntryStream", () => {
  test("starts with a retry hint, then sends live changes as events", async () => {
    const tenant = new FakeTenant();
    const s = open(tenant, { clock: new ManualClock(), retryMs: 1500 });
    expect(await s.until((t) => t.includes("\n\n"))).toBe("retry: 1500\n\n");
    tenant.commit(2);
    const events = await s.events(2);
    expect(events).toEqual([
      { id: 1, event: "entry.created", data: '{"id":"00000001"}' },
      { id: 2, event: "entry.created", data: '{"id":"00000002"}' },
    ]);
    expect(tenant.sinceCalls).toBe(0);
    s.stream.close("ended");
  });

  test("formats events and comments on lines of their own", () => {
    expect(sseEvent(7, "entry.created", "{}")).toBe("id: 7\nevent: entry.created\ndata: {}\n\n");
    expect(sseComment("a\nb")).toBe(": a b\n\n");
  });

  test("resumes after a position: the log in chunks, then live, without gap or duplicate", async () => {
    const tenant = new FakeTenant();
    tenant.commit(7);
    let open_: () => void = () => undefined;
    tenant.gate = new Promise((resolve) => {
      open_ = resolve;
    });
    const s = open(tenant, { clock: new ManualClock(), after: 2, backlogChunk: 2 });
    await settle();
    // Committed while the first chunk is being read: in the log and in the feed, sent once.
    tenant.commit(2);
    tenant.gate = undefined;
    open_();
    const events = await s.events(7);
    expect(events.map((e) => e.id)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    tenant.commit(1);
    expect((await s.events(8)).map((e) => e.id)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(tenant.sinceCalls).toBe(4);
    s.stream.close("ended");
  });

  test("a position beyond the log's end starts live from the end", async () => {
    const tenant = new FakeTenant();
    tenant.commit(3);
    const s = open(tenant, { clock: new ManualClock(), after: 1000 });
    await settle();
    tenant.commit(1);
    expect((await s.events(1)).map((e) => e.id)).toEqual([4]);
    s.stream.close("ended");
  });

  test("the backlog goes out as the client reads: a long one never overflows a reading client", async () => {
    const tenant = new FakeTenant();
    tenant.commit(250);
    const s = open(tenant, { clock: new ManualClock(), after: 0, backlogChunk: 10, maxQueuedEvents: 20 });
    const events = await s.events(250);
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(s.closes).toEqual([]);
    expect(s.stream.queued.events).toBeLessThanOrEqual(20);
    s.stream.close("ended");
  });

  test("too many live changes during a replay: the log is read once more, nothing is lost", async () => {
    const tenant = new FakeTenant();
    tenant.commit(5);
    let release: () => void = () => undefined;
    tenant.gate = new Promise((resolve) => {
      release = resolve;
    });
    const s = open(tenant, { clock: new ManualClock(), after: 0, backlogChunk: 100, maxPendingChanges: 10 });
    await settle();
    for (let i = 0; i < 30; i++) tenant.commit(1);
    tenant.gate = undefined;
    release();
    const events = await s.events(35);
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    expect(s.closes).toEqual([]);
    s.stream.close("ended");
  });

  test("changes the client may not see are passed over", async () => {
    const tenant = new FakeTenant();
    tenant.hidden.add(2);
    const s = open(tenant, { clock: new ManualClock() });
    tenant.commit(3);
    expect((await s.events(2)).map((e) => e.id)).toEqual([1, 3]);
    s.stream.close("ended");
  });

  test("heartbeat comments on the injected clock", async () => {
    const clock = new ManualClock();
    const tenant = new FakeTenant();
    const s = open(tenant, { clock, heartbeatMs: 5000 });
    expect(clock.dueTimes()).toEqual([clock.now() + 5000]);
    clock.advance(4999);
    clock.advance(1);
    expect(await s.until((t) => t.includes(": ping"))).toBe("retry: 3000\n\n: ping\n\n");
    clock.advance(5000);
    expect(await s.until((t) => t.split(": ping").length === 3)).toContain(": ping\n\n: ping\n\n");
    s.stream.close("ended");
    expect(clock.pending()).toBe(0);
  });

  test("a client that does not read is disconnected once its queue passes the bound", async () => {
    const tenant = new FakeTenant();
    const clock = new ManualClock();
    const s = open(tenant, { clock, maxQueuedEvents: 50 });
    expect(tenant.feeds.listenerCount(TENANT)).toBe(1);
    let commits = 0;
    while (!s.stream.isClosed && commits < 200) {
      tenant.commit(1);
      commits++;
      await settle(5);
    }
    expect(s.closes).toEqual(["overflow"]);
    expect(commits).toBeLessThan(60);
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
    expect(clock.pending()).toBe(0);
    expect(s.stream.queued).toEqual({ events: 0, bytes: 0 });
    // The body ends (what was queued is dropped: the client resumes from its last id).
    await s.until(() => false);
    expect((await s.reader.read()).done).toBe(true);
  });

  test("the byte bound counts as well", async () => {
    const tenant = new FakeTenant();
    const s = open(tenant, { clock: new ManualClock(), maxQueuedBytes: 2000 });
    for (let i = 0; i < 100 && !s.stream.isClosed; i++) {
      tenant.commit(1);
      await settle(5);
    }
    expect(s.closes).toEqual(["overflow"]);
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
  });

  test("ends at the token's expiry, saying why, and leaves no timer", async () => {
    const clock = new ManualClock();
    const tenant = new FakeTenant();
    const s = open(tenant, { clock, closeAt: clock.now() + 60_000, heartbeatMs: 15_000 });
    clock.advance(60_000);
    expect(s.closes).toEqual(["expired"]);
    expect(await s.until(() => false)).toContain(": closed: the token expired\n\n");
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("ends when the source says so (tenant gone), at the next heartbeat or change", async () => {
    const clock = new ManualClock();
    const tenant = new FakeTenant();
    const a = open(tenant, { clock, heartbeatMs: 1000 });
    tenant.ended = "the tenant was deleted";
    clock.advance(1000);
    expect(a.closes).toEqual(["ended"]);
    expect(await a.until(() => false)).toContain(": closed: the tenant was deleted");

    tenant.ended = undefined;
    const b = open(tenant, { clock, heartbeatMs: 1000 });
    tenant.ended = "the tenant is suspended";
    tenant.commit(1);
    expect(await b.until(() => false)).not.toContain("id: ");
    expect(b.closes).toEqual(["ended"]);
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
  });

  test("a client that goes away takes its listener and timers with it", async () => {
    const clock = new ManualClock();
    const tenant = new FakeTenant();
    const s = open(tenant, { clock, closeAt: clock.now() + 3_600_000 });
    expect(clock.pending()).toBe(2);
    await s.reader.cancel();
    expect(s.closes).toEqual(["cancelled"]);
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("a change that cannot be rendered ends the stream; the client resumes from its last id", async () => {
    const tenant = new FakeTenant();
    tenant.failAt = 2;
    const s = open(tenant, { clock: new ManualClock() });
    tenant.commit(3);
    const text = await s.until(() => false);
    expect(text).toContain("id: 1\n");
    expect(text).not.toContain("id: 3\n");
    expect(s.closes).toEqual(["failed"]);
    expect(tenant.feeds.listenerCount(TENANT)).toBe(0);
  });
});
