/**
 * OpenTelemetry tracing (issue 22, item 2), black-box: the runtime exports OTLP/HTTP JSON to a
 * local receiver on 127.0.0.1, configured by the standard OTEL_* variables. Asserted: the
 * parent/child structure (request span → actor message → vault commit; request → search →
 * embedding and actor message), the client's `traceparent` continued, concurrent requests kept
 * apart (AsyncLocalStorage under Bun), `traceparent` on an outbound delivery, and tracing off
 * without an endpoint.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { pollUntil } from "../helpers/poll.ts";
import { Receiver } from "../outbound/receiver.ts";
import { OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.ts";
import { nextTurn } from "./scrape.ts";

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let otlp: OtlpReceiver;
let subscriber: Receiver;
let h: Harness;
let tenant: { tenant_id: string; token: string };

/** A W3C traceparent a client sends: its trace id and its own span id. */
function clientParent(): { header: string; traceId: string; spanId: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
  const traceId = hex(16);
  const spanId = hex(8);
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/**
 * Exports every span ended so far to the receiver (the batch processor's delay is long here). A
 * request's span ends once its response is out (an `afterResponse` hook, on the event loop's next
 * turn): that turn comes first.
 */
async function flush(): Promise<void> {
  await nextTurn();
  await h.runtime.stores.telemetry.flush();
}

beforeAll(async () => {
  otlp = await OtlpReceiver.start();
  subscriber = await Receiver.start();
  h = await startHarness({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SERVICE_NAME: "memory-under-test",
      // Spans leave when the test flushes, not on a timer.
      OTEL_BSP_SCHEDULE_DELAY: "600000",
    },
  });
  tenant = await h.createTenant();
});
afterAll(async () => {
  await h.close();
  await otlp.stop();
  await subscriber.stop();
});

describe("a traced request", () => {
  test("continues the client's trace: request span → actor message → vault commit", async () => {
    const parent = clientParent();
    const res = await h.call("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "The renewal is due in May" },
      headers: { traceparent: parent.header },
    });
    expect(res.status).toBe(201);
    await flush();
    const request = otlp.one("POST /memory/facts", parent.traceId);
    expect(request).toMatchObject({ kind: SERVER, parentSpanId: parent.spanId });
    expect(request.attributes).toMatchObject({
      "http.route": "/memory/facts",
      "http.request.method": "POST",
      "http.response.status_code": 201,
    });
    expect(request.resource["service.name"]).toBe("memory-under-test");
    const children = otlp.childrenOf(request).map((s) => s.name);
    expect(children).toContain("tenant entry.create");
    expect(children).toContain("embedding");
    const message = otlp.one("tenant entry.create", parent.traceId);
    expect(message.attributes).toMatchObject({ "actor.kind": "tenant", "actor.message": "entry.create" });
    expect(otlp.childrenOf(message).map((s) => s.name)).toContain("vault.commit");
  });

  test("a search: request span → memory.search → the query's embedding and the actor's search", async () => {
    const parent = clientParent();
    const res = await h.call("POST", "/memory/search", {
      token: tenant.token,
      body: { query: "renewal" },
      headers: { traceparent: parent.header },
    });
    expect(res.status).toBe(200);
    await flush();
    const request = otlp.one("POST /memory/search", parent.traceId);
    const search = otlp.one("memory.search", parent.traceId);
    expect(search.parentSpanId).toBe(request.spanId);
    expect(search.attributes["search.mode"]).toBe("hybrid");
    expect(
      otlp
        .childrenOf(search)
        .map((s) => s.name)
        .sort(),
    ).toEqual(["embedding", "tenant memory.search"]);
  });

  test("concurrent requests keep their own spans (the context follows each request's awaits)", async () => {
    const parents = Array.from({ length: 6 }, clientParent);
    const answers = await Promise.all(
      parents.map((p, i) =>
        h.call("POST", "/memory/facts", {
          token: tenant.token,
          body: { content: `concurrent fact number ${i}` },
          headers: { traceparent: p.header },
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(parents.map(() => 201));
    await flush();
    for (const p of parents) {
      const request = otlp.one("POST /memory/facts", p.traceId);
      const message = otlp.one("tenant entry.create", p.traceId);
      expect(message.parentSpanId).toBe(request.spanId);
      expect(otlp.one("vault.commit", p.traceId).parentSpanId).toBe(message.spanId);
    }
  });

  test("a request without traceparent starts a trace; a refused one ends its span with its status", async () => {
    const res = await h.call("GET", "/tenants/me");
    expect(res.status).toBe(401);
    await flush();
    const refused = otlp.spans().filter((s) => s.name === "GET /tenants/me");
    expect(refused).toHaveLength(1);
    expect(refused[0]!.parentSpanId).toBeUndefined();
    expect(refused[0]!.attributes["http.response.status_code"]).toBe(401);
  });

  test("no span names or attributes carry a tenant id, a token or a raw path", async () => {
    await flush();
    const text = JSON.stringify(otlp.spans());
    expect(text).not.toContain(tenant.tenant_id);
    expect(text).not.toContain(tenant.token);
  });
});

describe("outbound deliveries", () => {
  test("carry traceparent: the delivery span's, in the trace of the write that caused it", async () => {
    const created = await h.json("POST", `/admin/subscriptions/${tenant.tenant_id}`, {
      token: h.adminToken,
      body: { url: subscriber.url(), events: ["entry.created"] },
    });
    expect(created.status).toBe(201);
    const parent = clientParent();
    const before = subscriber.received.length;
    const res = await h.call("POST", "/memory/facts", {
      token: tenant.token,
      body: { content: "A fact the subscriber hears about" },
      headers: { traceparent: parent.header },
    });
    expect(res.status).toBe(201);
    const [delivered] = (await subscriber.waitFor(before + 1)).slice(before);
    const traceparent = delivered!.headers.traceparent ?? "";
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(traceparent.split("-")[1]).toBe(parent.traceId);
    // The delivery's span ends once its answer is read, after the subscriber saw the request.
    await pollUntil(
      async () => {
        await flush();
        return otlp.spans().filter((s) => s.name === "outbound.delivery" && s.traceId === parent.traceId)
          .length;
      },
      (n) => n === 1,
    );
    const delivery: ReceivedSpan = otlp.one("outbound.delivery", parent.traceId);
    expect(delivery.kind).toBe(CLIENT);
    expect(traceparent.split("-")[2]).toBe(delivery.spanId);
    expect(delivery.status?.code).not.toBe(ERROR);
  });
});

describe("tracing off", () => {
  test("without an OTLP endpoint there is no tracer: no span is made, requests are served", async () => {
    const quiet = await startHarness();
    try {
      expect(quiet.runtime.stores.telemetry.tracing).toBeUndefined();
      const t = await quiet.createTenant();
      expect((await quiet.call("GET", "/tenants/me", { token: t.token })).status).toBe(200);
    } finally {
      await quiet.close();
    }
  });
});
