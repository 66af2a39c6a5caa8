import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSource } from "eventsource";
import { loadConfig } from "../../src/config/config.ts";
import { createRuntime } from "../../src/lib.ts";
import { openMemoryStreams } from "../../src/memory/open-streams.ts";
import { type Category, PLURAL_OF } from "../../src/models/category.ts";
import { isoOf } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { denialsOf, tokenWithRole } from "../helpers/api.ts";
import { type Harness, startHarness, TEST_SECRET } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { expectProblem } from "../helpers/problem.ts";

/** The part of a body reader the tests use (DOM and node:stream/web types disagree on the rest). */
interface ChunkReader {
  read(): Promise<{ done: boolean; value?: Uint8Array }>;
  cancel(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;

let h: Harness;
let clock: ManualClock;
let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(async () => {
  clock = new ManualClock();
  h = await startHarness({ clock });
  // Through a real socket: backpressure, disconnects and aborts are the server's, not app.handle's.
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 60, fetch: (r) => h.app.handle(r) });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.stop(true);
  await h.close();
});

interface SseEvent {
  id: string;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the event's data field by field
  data: any;
}

/** A stream read through fetch: events and comments are parsed as they arrive. */
class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  ended = false;
  private taken = 0;
  private text = "";
  private readonly reader: ChunkReader;
  private readonly decoder = new TextDecoder();

  private constructor(
    readonly res: Response,
    private readonly abort: AbortController,
  ) {
    this.reader = res.body!.getReader();
  }

  static async open(token: string, query = "", headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const res = await fetch(`${base}/memory/stream${query}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const client = new SseClient(res, abort);
    await client.until(() => client.retry !== undefined);
    return client;
  }

  /** Reads until `done` holds (or the stream ends). */
  async until(done: () => boolean): Promise<void> {
    while (!done() && !this.ended) {
      const chunk = await this.reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) this.ended = true;
      else this.parse(this.decoder.decode(chunk.value, { stream: true }));
    }
  }

  /** The next `count` events not yet taken by `next` or `through`. */
  async next(count = 1): Promise<SseEvent[]> {
    const want = this.taken + count;
    await this.until(() => this.events.length >= want);
    const out = this.events.slice(this.taken, want);
    this.taken = Math.min(want, this.events.length);
    return out;
  }

  /** Reads until an event of `type` about entry `id` arrives; returns the events not yet taken up to it. */
  async through(type: string, id: string): Promise<SseEvent[]> {
    const hit = () =>
      this.events.findIndex((e, i) => i >= this.taken && e.event === type && e.data.change.id === id);
    await this.until(() => hit() >= 0);
    const at = hit();
    expect(at).toBeGreaterThanOrEqual(0);
    const out = this.events.slice(this.taken, at + 1);
    this.taken = at + 1;
    return out;
  }

  async end(): Promise<void> {
    await this.until(() => false);
  }

  close(): void {
    this.abort.abort();
  }

  private parse(text: string): void {
    this.text += text;
    for (let at = this.text.indexOf("\n\n"); at >= 0; at = this.text.indexOf("\n\n")) {
      const block = this.text.slice(0, at);
      this.text = this.text.slice(at + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
        else {
          const colon = line.indexOf(":");
          fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
      }
      if (fields.retry) this.retry = Number(fields.retry);
      if (fields.data !== undefined)
        this.events.push({ id: fields.id!, event: fields.event!, data: JSON.parse(fields.data) });
    }
  }
}

async function tenant(): Promise<{ tenantId: string; token: string }> {
  const t = await h.createTenant();
  return { tenantId: t.tenant_id, token: await h.mint(t.tenant_id, ["tenant_admin"], "writer") };
}

// biome-ignore lint/suspicious/noExplicitAny: entries are read field by field
async function create(token: string, category: Category, body: Record<string, unknown>): Promise<any> {
  const res = await h.json("POST", `/memory/${PLURAL_OF[category]}`, { token, body });
  if (res.status !== 201) throw new Error(`create ${category}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

// biome-ignore lint/suspicious/noExplicitAny: entries are read field by field
async function read(token: string, category: Category, id: string): Promise<any> {
  const res = await h.json("GET", `/memory/${PLURAL_OF[category]}/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

/** A request expected to be refused; should it open a stream instead, the stream is closed at once. */
async function refusal(path: string, token: string, headers?: Record<string, string>): Promise<Response> {
  const res = await h.call("GET", path, { token, headers });
  if (res.status === 200) await res.body?.cancel();
  return res;
}

const listeners = (tenantId: string) => h.runtime.stores.changeFeeds.listenerCount(tenantId);

describe("GET /memory/stream: refusals", () => {
  test("anonymous → 401; the operator has no memory → 403", async () => {
    await expectProblem(await h.call("GET", "/memory/stream"), 401, "unauthorized");
    await expectProblem(await h.call("GET", "/memory/stream", { token: h.adminToken }), 403, "forbidden");
  });

  test("the 200 is the document's text/event-stream, not cached; cancelling it unsubscribes", async () => {
    const { tenantId, token } = await tenant();
    const res = await h.call("GET", "/memory/stream?categories=fact", { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toContain("no-cache");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(listeners(tenantId)).toBe(1);
    await res.body?.cancel();
    expect(listeners(tenantId)).toBe(0);
  });

  test("malformed Last-Event-ID (header or query) → 422", async () => {
    const { token } = await tenant();
    for (const value of ["abc", "-1", "1.5", "1e3", "7 8", "12345678901234567890", ""]) {
      const res = await refusal(`/memory/stream`, token, { "last-event-id": value });
      await expectProblem(res, 422, "validation_failed");
    }
    for (const value of ["abc", "-1", "%00", "1%0A2", "9".repeat(40)]) {
      const res = await refusal(`/memory/stream?last_event_id=${value}`, token);
      await expectProblem(res, 422, "validation_failed");
    }
  });

  test("unknown categories and hostile query values are 4xx, never 500", async () => {
    const { token } = await tenant();
    const hostile = [
      "categories=facts",
      "categories=fact,nope",
      "categories=%00",
      `categories=${"fact,".repeat(100)}`,
      `tags=${"x".repeat(65)}`,
      `tags=${Array.from({ length: 65 }, (_, i) => `t${i}`).join(",")}`,
      `tags=${"y".repeat(5000)}`,
      "tags=%F0%9F%92%A9&categories=%E2%80%AE",
    ];
    for (const query of hostile) {
      const res = await refusal(`/memory/stream?${query}`, token);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
      await expectProblem(res, 422, "validation_failed");
    }
  });

  test("a role that may read nothing, or names a category it may not read → 403, recorded", async () => {
    const { tenantId } = await tenant();
    const writer = await tokenWithRole(h, tenantId, "writer-only", ["memory:write"]);
    await expectProblem(await h.call("GET", "/memory/stream", { token: writer }), 403, "forbidden");
    const factReader = await tokenWithRole(h, tenantId, "fact-reader", ["memory:read:facts"]);
    const res = await h.call("GET", "/memory/stream?categories=fact,decision", { token: factReader });
    await expectProblem(res, 403, "forbidden");
    const denials = await denialsOf(h, tenantId);
    expect(denials.map((d) => [d.method, d.path, d.permission])).toEqual([
      ["GET", "/memory/stream", "memory:read:decisions"],
      ["GET", "/memory/stream", "memory:read"],
    ]);
  });
});

describe("GET /memory/stream: events", () => {
  test("an entry created arrives as entry.created, with the entry as GET answers it", async () => {
    const { tenantId, token } = await tenant();
    const client = await SseClient.open(token);
    expect(client.retry).toBeGreaterThan(0);
    expect(listeners(tenantId)).toBe(1);
    const fact = await create(token, "fact", { content: "The warehouse is in Lyon", tags: ["ops"] });
    const [event] = await client.next();
    expect(event!.event).toBe("entry.created");
    expect(Number(event!.id)).toBeGreaterThan(0);
    expect(event!.data.change).toEqual({
      seq: Number(event!.id),
      at: fact.recorded_at,
      type: "entry.created",
      id: fact.id,
      category: "fact",
      by: "writer",
    });
    expect(event!.data.entry).toEqual(await read(token, "fact", fact.id));
    client.close();
  });

  test("the eventsource client reads it too (custom fetch with the bearer token)", async () => {
    const { token } = await tenant();
    const source = new EventSource(`${base}/memory/stream?categories=fact`, {
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...init.headers, Authorization: `Bearer ${token}` } }),
    });
    const opened = new Promise<void>((resolve) => source.addEventListener("open", () => resolve()));
    const received = new Promise<MessageEvent>((resolve) =>
      source.addEventListener("entry.created", (e) => resolve(e)),
    );
    await opened;
    const fact = await create(token, "fact", { content: "Read by a standard client" });
    const message = await received;
    expect(message.lastEventId).toMatch(/^\d+$/);
    expect(JSON.parse(message.data).entry.id).toBe(fact.id);
    source.close();
  });

  test("a supersession: entry.created for the new entry, entry.superseded for the old one", async () => {
    const { token } = await tenant();
    const client = await SseClient.open(token);
    const old = await create(token, "fact", { content: "Office in Paris" });
    const newer = await create(token, "fact", {
      content: "Office in Lyon",
      supersedes: old.id,
      valid_from: isoOf(clock.now() + 1000),
    });
    const events = await client.through("entry.superseded", old.id);
    expect(events.map((e) => [e.event, e.data.change.id])).toEqual([
      ["entry.created", old.id],
      ["entry.created", newer.id],
      ["entry.superseded", old.id],
    ]);
    const superseded = events[2]!.data;
    expect(superseded.change.related).toBe(newer.id);
    expect(superseded.entry).toEqual(await read(token, "fact", old.id));
    expect(superseded.entry.invalidated_at).not.toBeNull();
    client.close();
  });

  test("an outcome resolves its decision: decision.resolved with the decision as it is now", async () => {
    const { token } = await tenant();
    const client = await SseClient.open(token);
    const decision = await create(token, "decision", { content: "Pick the blue supplier" });
    const outcome = await create(token, "outcome", {
      content: "Delivered",
      decision_id: decision.id,
      result: "success",
      amount: 1200,
    });
    const events = await client.through("decision.resolved", decision.id);
    expect(events.map((e) => e.event)).toEqual(["entry.created", "entry.created", "decision.resolved"]);
    const resolved = events[2]!.data;
    expect(resolved.change.related).toBe(outcome.id);
    expect(resolved.entry.status).toBe("resolved");
    expect(resolved.entry).toEqual(await read(token, "decision", decision.id));
    client.close();
  });

  test("a merge and its un-merge: the absorbed entry as it is now, hidden, then live again", async () => {
    const { token } = await tenant();
    const client = await SseClient.open(token);
    const survivor = await create(token, "fact", {
      content: "Alice prefers green tea in the morning before work",
    });
    const absorbed = await create(token, "fact", {
      content: "Alice strongly prefers green tea in the morning before work",
    });
    const body = { category: "fact", from: absorbed.id, into: survivor.id };
    expect((await h.json("POST", "/memory/merges", { token, body })).status).toBe(201);
    const merged = (await client.through("entry.merged", absorbed.id)).at(-1)!;
    expect(merged.data.change.related).toBe(survivor.id);
    expect(merged.data.entry.expired_at).not.toBeNull();
    expect((await h.json("POST", `/memory/merges/${absorbed.id}/unmerge`, { token })).status).toBe(200);
    const [unmerged] = await client.through("entry.unmerged", absorbed.id);
    expect(unmerged!.data.entry).toEqual(await read(token, "fact", absorbed.id));
    expect(unmerged!.data.entry.expired_at).toBeNull();
    client.close();
  });

  test("correction, retraction and erasure: the entry as it is now; an erased one only by id", async () => {
    const { tenantId, token } = await tenant();
    const client = await SseClient.open(token, "?tags=hr");
    const wrong = await create(token, "fact", { content: "Ada joined in 2019", tags: ["hr"] });
    const right = await create(token, "fact", {
      content: "Ada joined in 2018",
      tags: ["hr"],
      corrects: wrong.id,
    });
    const corrected = await client.through("entry.corrected", wrong.id);
    expect(corrected.map((e) => [e.event, e.data.change.id])).toEqual([
      ["entry.created", wrong.id],
      ["entry.created", right.id],
      ["entry.corrected", wrong.id],
    ]);
    expect(corrected[2]!.data.change.related).toBe(right.id);
    expect(corrected[2]!.data.entry.expired_at).not.toBeNull();

    const retract = await h.call("DELETE", `/memory/facts/${right.id}`, { token });
    expect(retract.status).toBe(200);
    const [retracted] = await client.through("entry.retracted", right.id);
    expect(retracted!.data.entry).toEqual(await read(token, "fact", right.id));
    expect(retracted!.data.entry.expired_at).not.toBeNull();

    const erase = await h.json("POST", `/admin/tenants/${tenantId}/erase`, {
      token: h.adminToken,
      body: { ids: [wrong.id] },
    });
    expect(erase.status).toBe(200);
    const [erased] = await client.through("entry.erased", wrong.id);
    expect(erased!.data).toEqual({
      change: {
        seq: Number(erased!.id),
        at: erase.body.erased_at,
        type: "entry.erased",
        id: wrong.id,
        category: "fact",
        by: "operator",
      },
      entry: { id: wrong.id, category: "fact", erased_at: erase.body.erased_at },
    });
    client.close();

    // Replayed from the start: the erased entry's earlier changes are gone with it; its erasure is not.
    const replay = await SseClient.open(token, "", { "last-event-id": "0" });
    const all = await replay.through("entry.erased", wrong.id);
    expect(all.map((e) => [e.event, e.data.change.id])).toEqual([
      ["entry.created", right.id],
      ["entry.retracted", right.id],
      ["entry.erased", wrong.id],
    ]);
    replay.close();
  });

  test("categories and tags filter: only entries of those categories carrying every tag", async () => {
    const { token } = await tenant();
    const client = await SseClient.open(token, "?categories=fact,%20exception&tags=vip,eu");
    await create(token, "fact", { content: "vip only", tags: ["vip"] });
    await create(token, "decision", { content: "a vip eu decision", tags: ["vip", "eu"] });
    const match = await create(token, "fact", { content: "vip eu fact", tags: ["eu", "vip", "x"] });
    await create(token, "workflow", { content: "steps", tags: ["vip", "eu"] });
    const last = await create(token, "exception", { content: "vip eu exception", tags: ["vip", "eu"] });
    const events = await client.through("entry.created", last.id);
    expect(events.map((e) => e.data.entry.id)).toEqual([match.id, last.id]);
    client.close();

    // A parameter given twice counts with both values.
    const repeated = await SseClient.open(token, "?categories=decision&categories=fact&tags=eu&tags=vip");
    const fact = await create(token, "fact", { content: "another vip eu fact", tags: ["vip", "eu"] });
    await create(token, "decision", { content: "eu only", tags: ["eu"] });
    const decision = await create(token, "decision", { content: "vip eu", tags: ["vip", "eu"] });
    const both = await repeated.through("entry.created", decision.id);
    expect(both.map((e) => e.data.entry.id)).toEqual([fact.id, decision.id]);
    repeated.close();
  });

  test("a role that cannot read decisions never receives them", async () => {
    const { tenantId, token } = await tenant();
    const reader = await tokenWithRole(h, tenantId, "fact-follower", ["memory:read:facts", "memory:search"]);
    const client = await SseClient.open(reader);
    const decision = await create(token, "decision", { content: "Hire" });
    await create(token, "outcome", { content: "Hired", decision_id: decision.id, result: "success" });
    const fact = await create(token, "fact", { content: "The team grew" });
    const events = await client.through("entry.created", fact.id);
    expect(events.map((e) => [e.event, e.data.entry.category])).toEqual([["entry.created", "fact"]]);
    client.close();
  });

  test("deleting the role narrows a stream already open (roles are resolved at every event)", async () => {
    const { tenantId, token } = await tenant();
    const reader = await tokenWithRole(h, tenantId, "short-lived", ["memory:read"]);
    const client = await SseClient.open(reader);
    const first = await create(token, "fact", { content: "seen" });
    await client.through("entry.created", first.id);
    const del = await h.call("DELETE", `/admin/roles/${tenantId}/short-lived`, { token: h.adminToken });
    expect(del.status).toBe(200);
    await create(token, "fact", { content: "not seen" });
    // The role again: events are sent in log order, so one sent for "not seen" would come first.
    await tokenWithRole(h, tenantId, "short-lived", ["memory:read"]);
    const again = await create(token, "fact", { content: "seen again" });
    const events = await client.through("entry.created", again.id);
    expect(events.map((e) => e.data.entry.id)).toEqual([again.id]);
    client.close();
  });
});

describe("GET /memory/stream: resume, heartbeat, bounds, end", () => {
  test("Last-Event-ID resumes with exactly the missed events, then live, no duplicates", async () => {
    const { tenantId, token } = await tenant();
    const first = await SseClient.open(token);
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push(await create(token, "fact", { content: `seen ${i}` }));
    const got = await first.next(3);
    first.close();
    await pollUntil(
      () => listeners(tenantId),
      (n) => n === 0,
    );

    const missed = [];
    for (let i = 0; i < 4; i++) missed.push(await create(token, "fact", { content: `missed ${i}` }));
    const lastId = got[2]!.id;
    const resumed = await SseClient.open(token, "", { "last-event-id": lastId });
    const replayed = await resumed.next(4);
    expect(replayed.map((e) => e.data.entry.id)).toEqual(missed.map((m) => m.id));
    const live = await create(token, "fact", { content: "live again" });
    await resumed.through("entry.created", live.id);
    const ids = resumed.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(resumed.events.map((e) => e.data.entry.id)).toEqual([...missed, live].map((m) => m.id));
    resumed.close();

    // The query parameter, for clients that cannot set headers; the header wins over it.
    const byQuery = await SseClient.open(token, `?last_event_id=${lastId}`);
    expect((await byQuery.next(5)).map((e) => e.data.entry.id)).toEqual([...missed, live].map((m) => m.id));
    byQuery.close();
    const both = await SseClient.open(token, "?last_event_id=0", { "last-event-id": lastId });
    expect((await both.next(1))[0]!.data.entry.id).toBe(missed[0].id);
    both.close();
  });

  test("a position beyond the log's end starts live from the end", async () => {
    const { token } = await tenant();
    await create(token, "fact", { content: "old" });
    const client = await SseClient.open(token, "", { "last-event-id": "999999" });
    const fact = await create(token, "fact", { content: "new" });
    const [event] = await client.next();
    expect(event!.data.entry.id).toBe(fact.id);
    client.close();
  });

  test("heartbeat comments as the clock advances", async () => {
    const { token } = await tenant();
    const client = await SseClient.open(token);
    clock.advance(HEARTBEAT_MS);
    await client.until(() => client.comments.length >= 1);
    clock.advance(HEARTBEAT_MS);
    await client.until(() => client.comments.length >= 2);
    expect(client.comments.slice(0, 2)).toEqual(["ping", "ping"]);
    client.close();
  });

  test("a client that disconnects takes its listener and timers with it", async () => {
    const { tenantId, token } = await tenant();
    const pending = clock.pending();
    const client = await SseClient.open(token);
    expect(listeners(tenantId)).toBe(1);
    expect(clock.pending()).toBe(pending + 2);
    client.close();
    await pollUntil(
      () => listeners(tenantId),
      (n) => n === 0,
    );
    expect(clock.pending()).toBe(pending);
  });

  test("a client that stops reading is disconnected once its queue passes the bound", async () => {
    const { tenantId, token } = await tenant();
    const abort = new AbortController();
    const res = await fetch(`${base}/memory/stream`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    expect(listeners(tenantId)).toBe(1);
    const actor = h.runtime.services.tenant(tenantId);
    const content = "x".repeat(12_000);
    let written = 0;
    // ~12 KB an event: the socket's buffers take a few MB, then the stream's queue fills.
    while (listeners(tenantId) > 0 && written < 1100) {
      await actor.ask({
        type: "entry.create",
        draft: { category: "fact", content: `${written} ${content}` },
        createdBy: "bulk",
      });
      written++;
    }
    expect(listeners(tenantId)).toBe(0);
    expect(written).toBeLessThan(1100);
    // The client then finds the end of the stream after whatever the socket still held.
    const reader = res.body!.getReader();
    let bytes = 0;
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
      bytes += chunk.value.byteLength;
    }
    expect(bytes).toBeLessThan(written * 13_000);
  });

  test("a stream ends at its token's expiry", async () => {
    const { tenantId } = await tenant();
    const { token } = await h.runtime.services.tokens.mint({
      sub: "brief",
      tenantId,
      roles: ["tenant_admin"],
      ttlSeconds: 60,
    });
    const client = await SseClient.open(token);
    clock.advance(60_000);
    await client.end();
    expect(client.comments).toContain("closed: the token expired");
    expect(listeners(tenantId)).toBe(0);
  });

  test("a stream ends when its tenant is suspended (and stays closed when it is deleted)", async () => {
    const { tenantId, token } = await tenant();
    const client = await SseClient.open(token);
    const suspended = await h.call("POST", `/admin/tenants/${tenantId}/suspend`, { token: h.adminToken });
    expect(suspended.status).toBe(200);
    clock.advance(HEARTBEAT_MS);
    await client.end();
    expect(client.comments).toContain("closed: the tenant is suspended");
    expect(listeners(tenantId)).toBe(0);
    const refused = await h.call("GET", "/memory/stream", { token });
    await expectProblem(refused, 403, "tenant_suspended");
    const deleted = await h.call("DELETE", `/admin/tenants/${tenantId}`, { token: h.adminToken });
    expect(deleted.status).toBe(200);
    await pollUntil(
      () => openMemoryStreams(h.runtime.services),
      (n) => n === 0,
    );
  });
});

describe("GET /memory/stream: configuration", () => {
  test("MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS: default 15, 1–3600", () => {
    const env = { MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET };
    expect(loadConfig(env).streamHeartbeatMs).toBe(15_000);
    expect(loadConfig({ ...env, MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS: "5" }).streamHeartbeatMs).toBe(5000);
    for (const bad of ["0", "3601", "1.5", "soon"])
      expect(() => loadConfig({ ...env, MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS: bad })).toThrow(
        /MEMORY_RUNTIME_STREAM_HEARTBEAT_SECONDS/,
      );
  });
});

describe("GET /memory/stream: the server's own listener", () => {
  test("stopping the runtime ends open streams first (the server waits for open responses)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mrt-stream-"));
    const runtime = createRuntime({
      env: {
        MEMORY_RUNTIME_JWT_SECRET: TEST_SECRET,
        MEMORY_RUNTIME_DATA_DIR: dir,
        MEMORY_RUNTIME_EMBEDDER: "hash",
        MEMORY_RUNTIME_LOG: "off",
        HOST: "127.0.0.1",
      },
      log: () => undefined,
    });
    try {
      const { url } = runtime.listen(0);
      const { services } = runtime.internals;
      const tenantRecord = await services.lifecycle.create("Stream stop", "test");
      const { token } = await services.tokens.mint({
        sub: "agent",
        tenantId: tenantRecord.tenant_id,
        roles: ["tenant_admin"],
        ttlSeconds: 600,
      });
      const res = await fetch(`${url}/memory/stream`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value);
      expect(openMemoryStreams(services)).toBe(1);
      await runtime.stop();
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      expect(text).toStartWith("retry: ");
      expect(text).toEndWith(": closed: the server is stopping\n\n");
      expect(openMemoryStreams(services)).toBe(0);
      expect(runtime.internals.stores.changeFeeds.listenerCount(tenantRecord.tenant_id)).toBe(0);
    } finally {
      await runtime.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
