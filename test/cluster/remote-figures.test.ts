/**
 * The dashboard's figures in cluster mode, in process (src/cluster/remote-figures.ts): both admin
 * routes asked through the router with the caller's own credential; any other answer, or none
 * within the bounded wait (on the injected clock), is the row's reason for being unavailable.
 */
import { describe, expect, test } from "bun:test";
import { figuresThroughRouter, type Route } from "../../src/cluster/remote-figures.ts";
import { Unavailable } from "../../src/errors/domain-errors.ts";
import { ManualClock } from "../../src/runtime/clock.ts";

const TENANT = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const ZERO = { decision: 0, exception: 0, fact: 0, workflow: 0, relationship: 0, outcome: 0 };
const WINDOW = { from: Date.UTC(2026, 9, 24, 12), to: Date.UTC(2026, 10, 23, 12) };
const DAYS = { fromDay: "2026-10-25", toDay: "2026-11-23" };
const STATS = {
  tenant_id: TENANT,
  from_day: DAYS.fromDay,
  to_day: DAYS.toDay,
  entries_per_category: { ...ZERO, fact: 2 },
  dead_letters: 1,
  writes_per_day: [{ day: "2026-11-23", category: "fact" as const, writes: 2 }],
};
const REVENUE = {
  tenant_id: TENANT,
  from: "2026-10-24T12:00:00.000Z",
  to: "2026-11-23T12:00:00.000Z",
  currency: "USD",
  revenue: 0,
  agents: 0,
  revenue_per_agent: null,
  by_currency: [],
  by_agent: [],
};

function caller(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1:8081/admin/dashboard", { headers });
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

describe("figuresThroughRouter", () => {
  test("asks both routes with the caller's Authorization and cookie, nothing else of it", async () => {
    const asked: Request[] = [];
    const route: Route = async (request) => {
      asked.push(request);
      return json(new URL(request.url).pathname.includes("/stats/") ? STATS : REVENUE);
    };
    const figures = figuresThroughRouter(route, new ManualClock());
    const headers = { authorization: "Bearer a.b.c", cookie: "memory_admin=a.b.c", "x-other": "kept out" };
    const answer = await figures({ tenantId: TENANT, days: DAYS, window: WINDOW, caller: caller(headers) });

    expect(answer).toEqual({
      stats: {
        entries_per_category: STATS.entries_per_category,
        dead_letters: 1,
        writes_per_day: STATS.writes_per_day,
      },
      revenue: REVENUE,
    });
    expect(asked.map((r) => r.url).sort()).toEqual([
      `http://127.0.0.1:8081/admin/metrics/revenue-per-agent/${TENANT}?from=2026-10-24T12:00:00.000Z&to=2026-11-23T12:00:00.000Z`,
      `http://127.0.0.1:8081/admin/metrics/stats/${TENANT}?from_day=2026-10-25&to_day=2026-11-23`,
    ]);
    for (const request of asked) {
      expect(request.method).toBe("GET");
      expect([...request.headers.keys()].sort()).toEqual(["authorization", "cookie"]);
      expect(request.headers.get("authorization")).toBe("Bearer a.b.c");
      expect(request.headers.get("cookie")).toBe("memory_admin=a.b.c");
    }
  });

  test("an answer other than 200 is Unavailable with the problem's detail", async () => {
    const problem = {
      type: "/problems/unavailable",
      status: 503,
      detail: "no node serves this tenant's partition (7) now",
    };
    const route: Route = async (request) =>
      new URL(request.url).pathname.includes("/stats/") ? json(problem, 503) : json(REVENUE);
    const figures = figuresThroughRouter(route, new ManualClock());
    const asked = figures({ tenantId: TENANT, days: DAYS, window: WINDOW, caller: caller({}) });
    await expect(asked).rejects.toBeInstanceOf(Unavailable);
    await expect(asked).rejects.toMatchObject({ message: problem.detail });
  });

  test("no answer within the bounded wait: Unavailable once the clock passes it, not before", async () => {
    const clock = new ManualClock();
    const never: Route = () => new Promise<Response>(() => {});
    const figures = figuresThroughRouter(never, clock, 4000);
    let outcome: unknown;
    figures({ tenantId: TENANT, days: DAYS, window: WINDOW, caller: caller({}) }).catch((error) => {
      outcome = error;
    });
    clock.advance(3999);
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    clock.advance(1);
    await Promise.resolve();
    expect(outcome).toBeInstanceOf(Unavailable);
    expect((outcome as Error).message).toBe("the tenant's node did not answer within 4 s");
  });
});
