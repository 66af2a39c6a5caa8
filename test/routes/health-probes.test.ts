/**
 * `GET /livez` and `GET /readyz` (docs/operations.md, "Health for orchestrators"), and the
 * shutdown gate in front of every other route. The spawned server's SIGTERM is in
 * test/graceful-shutdown.test.ts; a cluster node's readiness in test/cluster/readyz.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readinessOf } from "../../src/compose/readiness.ts";
import { ShutdownGate } from "../../src/http/shutdown-gate.ts";
import type { ReadinessChecks } from "../../src/models/probes.ts";
import { type Harness, startHarness } from "../helpers/harness.ts";
import { expectProblem } from "../helpers/problem.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe("GET /livez and GET /readyz", () => {
  test("livez: 200 {status: ok}, no token", async () => {
    const res = await h.json("GET", "/livez");
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: "ok" } });
  });

  test("readyz: 200 with every check, no token; a single node has no cluster check", async () => {
    const res = await h.json("GET", "/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ready",
      checks: { accepting: { ok: true }, system_store: { ok: true } },
    });
  });

  test("bad input never 500s: a query, a body, another method", async () => {
    expect((await h.call("GET", "/readyz?verbose=%ff&x=1")).status).toBe(200);
    expect((await h.call("GET", "/livez", { raw: "x".repeat(10_000) })).status).toBe(200);
    for (const path of ["/livez", "/readyz"]) {
      const res = await h.call("POST", path, { body: { a: 1 } });
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      await expectProblem(res, 405, "method_not_allowed");
    }
  });
});

describe("once the stop has begun", () => {
  let stopping: Harness;
  beforeAll(async () => {
    stopping = await startHarness();
    stopping.runtime.services.shutdown.begin();
  });
  afterAll(() => stopping.close());

  test("readyz is a 503 problem `not_ready` naming the check, with every check; livez still 200", async () => {
    const problem = await expectProblem(await stopping.call("GET", "/readyz"), 503, "not_ready");
    expect(problem.detail).toBe("accepting: the server is shutting down");
    const { body } = await stopping.json<{ checks: ReadinessChecks }>("GET", "/readyz");
    expect(body.checks).toEqual({
      accepting: { ok: false, detail: "the server is shutting down" },
      system_store: { ok: true },
    });
    expect((await stopping.json("GET", "/livez")).status).toBe(200);
  });

  test("every other request is 503 shutting_down with Retry-After and Connection: close", async () => {
    for (const [method, path] of [
      ["GET", "/healthz"],
      ["POST", "/memory/facts"],
      ["GET", "/admin/dashboard"],
      ["GET", "/no/such/route"],
    ] as const) {
      const res = await stopping.app.handle(new Request(`http://localhost${path}`, { method }));
      expect({
        path,
        retry: res.headers.get("retry-after"),
        connection: res.headers.get("connection"),
      }).toEqual({
        path,
        retry: "1",
        connection: "close",
      });
      await expectProblem(res, 503, "shutting_down");
    }
  });
});

describe("after the runtime stopped", () => {
  test("readyz is 503: the system store is closed", async () => {
    const stopped = await startHarness();
    await stopped.runtime.stop();
    const res = await stopped.app.handle(new Request("http://localhost/readyz"));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { detail: string; checks: ReadinessChecks };
    expect(body.checks.system_store).toEqual({ ok: false, detail: "the system store is closed" });
    expect(body.detail).toBe(
      "accepting: the server is shutting down; system_store: the system store is closed",
    );
    await stopped.close();
  });
});

describe("readinessOf", () => {
  const store = { open: true };
  test("the port's check is reported as `cluster`, and fails readiness on its own", () => {
    let clusterOk = false;
    const readiness = readinessOf({
      gate: new ShutdownGate(),
      store,
      probe: () =>
        clusterOk ? { ok: true } : { ok: false, detail: "partitions 3, 7 are not served here yet" },
    });
    expect(readiness()).toEqual({
      checks: {
        accepting: { ok: true },
        system_store: { ok: true },
        cluster: { ok: false, detail: "partitions 3, 7 are not served here yet" },
      },
      failed: ["cluster: partitions 3, 7 are not served here yet"],
    });
    clusterOk = true;
    expect(readiness().failed).toEqual([]);
  });
});
