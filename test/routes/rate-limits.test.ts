/**
 * Per-tenant rate limits, black-box (CONTRACT §1: 429 `rate_limited` with `Retry-After`): small
 * limits on an injected clock, so a bucket is used up in a few requests and refills when the test
 * moves time, never by sleeping.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { OPERATOR_TENANT_ID } from "../../src/models/common.ts";
import { ManualClock } from "../../src/runtime/clock.ts";
import { denialsOf } from "../helpers/api.ts";
import { BASE, type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { expectProblem } from "../helpers/problem.ts";
import { deadLetters, lazyBody, setSecrets } from "../helpers/webhooks.ts";

const clock = new ManualClock();
let h: Harness;

interface Tenant {
  id: string;
  token: string;
}
/** `a` and `b` share the class limits; `big` has an override of its reads; `w` and `v` take webhooks. */
const t: Record<"a" | "b" | "big" | "w" | "v", Tenant> = {} as never;
const DATA_TOKEN = "data-webhook-token-of-the-rate-limit-test";

beforeAll(async () => {
  h = await startHarness({
    clock,
    env: {
      MEMORY_RUNTIME_RATE_LIMITS: "read=2:3,write=1:2,search=0.5:1,admin=1:2,webhook=1:2",
      // Refusals answered at once here; holding them is tested on its own below.
      MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "0",
      [`MEMORY_RUNTIME_RATE_LIMITS_${OPERATOR_TENANT_ID}`]: "admin=1000:1000",
    },
  });
  for (const name of ["a", "b", "big", "w", "v"] as const) {
    const created = await h.createTenant();
    t[name] = { id: created.tenant_id, token: created.token };
  }
  for (const name of ["w", "v"] as const) setSecrets(h, t[name].id, { DATA_WEBHOOK_TOKEN: DATA_TOKEN });
  // Overrides are read at start, like every setting: set it, then restart on the same data.
  h.env[`MEMORY_RUNTIME_RATE_LIMITS_${t.big.id}`] = "read=100:100";
  await h.restart();
});
afterAll(() => h.close());
// Every bucket here refills within 2 s; tokens live an hour, so 10 s per test is plenty.
beforeEach(() => clock.advance(10_000));

const me = (who: Tenant) => h.call("GET", "/tenants/me", { token: who.token });
const writeFact = (who: Tenant, content: string) =>
  h.call("POST", "/memory/facts", { token: who.token, body: { content } });
/** Unique content, so no write is an idempotent repeat of another. */
let written = 0;
const unique = (what: string) => `${what} ${++written}`;
const search = (who: Tenant) => h.call("POST", "/memory/search", { token: who.token, body: { query: "x" } });

async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

async function factsOf(who: Tenant): Promise<string[]> {
  clock.advance(10_000); // a fresh read bucket: the count is not limited itself
  const { status, body } = await h.json("GET", "/memory/facts?limit=100", { token: who.token });
  expect(status).toBe(200);
  return body.items.map((e: { content: string }) => e.content).sort();
}

describe("429 rate_limited", () => {
  test("past its burst a tenant's request is a problem document with Retry-After in whole seconds", async () => {
    expect(await statuses(3, () => me(t.a))).toEqual([200, 200, 200]);
    const res = await me(t.a);
    const problem = await expectProblem(res, 429, "rate_limited");
    expect(problem.detail).toContain("2/s (burst 3) for read requests");
    // 2 a second: the next token is half a second away, rounded up to a whole second.
    expect(res.headers.get("retry-after")).toBe("1");
  });

  test("the bucket refills on the injected clock: Retry-After says when", async () => {
    expect((await search(t.a)).status).toBe(200);
    const limited = await search(t.a);
    await expectProblem(limited, 429, "rate_limited");
    expect(limited.headers.get("retry-after")).toBe("2");
    clock.advance(1999);
    const stillLimited = await search(t.a);
    expect({ status: stillLimited.status, retryAfter: stillLimited.headers.get("retry-after") }).toEqual({
      status: 429,
      retryAfter: "1",
    });
    clock.advance(1);
    expect((await search(t.a)).status).toBe(200);
  });

  test("one tenant's flood leaves another tenant, and its own other classes, untouched", async () => {
    expect(await statuses(8, () => me(t.a))).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect(await statuses(3, () => me(t.b))).toEqual([200, 200, 200]);
    expect((await writeFact(t.a, "written while reads are limited")).status).toBe(201);
  });

  test("a tenant's override replaces the class limits it names, and only those", async () => {
    expect(await statuses(60, () => me(t.big))).toEqual(Array(60).fill(200));
    expect(await statuses(3, () => writeFact(t.big, unique("override")))).toEqual([201, 201, 429]);
  });

  test("a limited write is refused before its body is read, and writes nothing", async () => {
    expect(await statuses(2, () => writeFact(t.b, unique("kept")))).toEqual([201, 201]);
    await expectProblem(await writeFact(t.b, "never written"), 429, "rate_limited");
    // Unparseable: 429, not 400; the body was never parsed.
    await expectProblem(
      await h.call("POST", "/memory/facts", { token: t.b.token, raw: "{{{" }),
      429,
      "rate_limited",
    );
    const lazy = lazyBody(8 * 1024 * 1024);
    const res = await h.app.handle(
      new Request(`${BASE}/memory/facts`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.b.token}`, "content-type": "application/json" },
        body: lazy.stream,
        duplex: "half",
      } as RequestInit),
    );
    await expectProblem(res, 429, "rate_limited");
    expect(lazy.pulled()).toBeLessThan(1024 * 1024);
    expect((await factsOf(t.b)).filter((c) => c.startsWith("never"))).toEqual([]);
  });
});

describe("operator routes", () => {
  test("a tenant token on admin routes: its own admin bucket, limited before the 403 is audited", async () => {
    const before = (await denialsOf(h, t.b.id)).length;
    const answers = await statuses(5, () => h.call("GET", "/admin/tenants", { token: t.b.token }));
    expect(answers).toEqual([403, 403, 429, 429, 429]);
    expect((await denialsOf(h, t.b.id)).length).toBe(before + 2);
  });

  test("the operator's buckets are its own (its override here): a tenant's admin flood never limits it", async () => {
    await statuses(5, () => h.call("GET", "/admin/tenants", { token: t.a.token }));
    expect(await statuses(30, () => h.call("GET", "/admin/tenants", { token: h.adminToken }))).toEqual(
      Array(30).fill(200),
    );
  });
});

describe("webhooks: per tenant and source", () => {
  const created = (version: string) => ({
    event: "MODEL_VERSION_CREATED",
    webhook_id: "wh",
    event_timestamp: 1763719100000,
    model_name: "churn",
    version,
  });
  const deleted = {
    event: "MODEL_VERSION_DELETED",
    webhook_id: "wh",
    event_timestamp: 5,
    model_name: "m",
    version: "1",
  };
  const deliver = (who: Tenant, event: unknown, source = "data") =>
    h.call("POST", `/webhooks/${source}/${who.id}`, {
      raw: JSON.stringify(event),
      headers: { "content-type": "application/json", authorization: `Bearer ${DATA_TOKEN}` },
    });

  test("a limited delivery is 429 with nothing written or dead-lettered; delivered again later, it is taken", async () => {
    expect(await statuses(2, () => deliver(t.w, created(unique("v"))))).toEqual([200, 200]);
    const limitedWrite = await deliver(t.w, created("late"));
    await expectProblem(limitedWrite, 429, "rate_limited");
    expect(limitedWrite.headers.get("retry-after")).toBe("1");
    await expectProblem(await deliver(t.w, deleted), 429, "rate_limited");
    expect((await factsOf(t.w)).length).toBe(2);
    expect(await deadLetters(h, t.w.id)).toEqual([]);

    // Other sources of the tenant and other tenants have buckets of their own.
    await expectProblem(await deliver(t.w, {}, "crm"), 503, "secret_missing");
    expect((await deliver(t.v, created("neighbour"))).status).toBe(200);

    // The platform retries after Retry-After: both deliveries are taken now.
    clock.advance(2000);
    const retried = await h.json("POST", `/webhooks/data/${t.w.id}`, {
      raw: JSON.stringify(created("late")),
      headers: { "content-type": "application/json", authorization: `Bearer ${DATA_TOKEN}` },
    });
    expect(retried.body).toMatchObject({ accepted: 1, duplicates: 0, dead_lettered: [] });
    const dead = await h.json("POST", `/webhooks/data/${t.w.id}`, {
      raw: JSON.stringify(deleted),
      headers: { "content-type": "application/json", authorization: `Bearer ${DATA_TOKEN}` },
    });
    expect(dead.body).toMatchObject({ accepted: 0, dead_lettered: ["MODEL_VERSION_DELETED:m:1:5"] });
    expect((await factsOf(t.w)).length).toBe(3);
    expect((await deadLetters(h, t.w.id)).map((d) => d.event_id)).toEqual(["MODEL_VERSION_DELETED:m:1:5"]);
  });

  test("the limit is checked before the signature: a limited delivery's body is never read", async () => {
    await statuses(3, () => deliver(t.v, created(unique("x"))));
    const lazy = lazyBody(8 * 1024 * 1024);
    const res = await h.app.handle(
      new Request(`${BASE}/webhooks/data/${t.v.id}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer wrong" },
        body: lazy.stream,
        duplex: "half",
      } as RequestInit),
    );
    await expectProblem(res, 429, "rate_limited");
    expect(lazy.pulled()).toBeLessThan(1024 * 1024);
  });
});

describe("held refusals", () => {
  test("a refusal is answered once its hold is over on the injected clock, never before", async () => {
    const heldClock = new ManualClock();
    const held = await startHarness({
      clock: heldClock,
      env: { MEMORY_RUNTIME_RATE_LIMITS: "read=1:1", MEMORY_RUNTIME_RATE_LIMIT_HOLD_MS: "250" },
    });
    try {
      const { token } = await held.createTenant();
      expect((await held.call("GET", "/tenants/me", { token })).status).toBe(200);
      let answered = false;
      const pending = held.call("GET", "/tenants/me", { token }).then((res) => {
        answered = true;
        return res;
      });
      const limiter = held.runtime.services.rateLimiter;
      await pollUntil(
        () => limiter.heldCount,
        (n) => n === 1,
      );
      // Held: its only way out is the hold's timer, which has not fired.
      expect({ answered, due: heldClock.dueTimes().includes(heldClock.now() + 250) }).toEqual({
        answered: false,
        due: true,
      });
      heldClock.advance(250);
      const res = await pending;
      await expectProblem(res, 429, "rate_limited");
      expect(res.headers.get("retry-after")).toBe("1");
    } finally {
      await held.close();
    }
  });
});

describe("the OpenAPI document", () => {
  test("declares the 429 on every limited operation: every token-bearing one and the webhook route", async () => {
    const { body: doc } = await h.json("GET", "/openapi/json");
    const without429: string[] = [];
    let limited = 0;
    for (const [path, item] of Object.entries<Record<string, { security?: unknown[]; responses?: object }>>(
      doc.paths,
    )) {
      for (const [method, op] of Object.entries(item)) {
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        if (isPublic && !path.startsWith("/webhooks/")) continue;
        limited++;
        if (!("429" in (op.responses ?? {}))) without429.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(without429).toEqual([]);
    expect(limited).toBeGreaterThan(60);
  });
});
