/**
 * Part 1 of the bench as figures (bench/route-figures.ts, shared by `bun run bench` and
 * `BENCH_PART=routes`): each service load over the bare load of its own round, the faster webhook
 * load by median, and the loads that saw failures.
 */
import { describe, expect, test } from "bun:test";
import type { LoadResult } from "../../bench/load.ts";
import { failedRequestsOf, requestFigures, webhookFigure } from "../../bench/route-figures.ts";
import type { RouteRound } from "../../bench/scenarios/http-routes.ts";
import type { WebhookLoad } from "../../bench/scenarios/webhooks.ts";

const load = (name: string, rps: number, failures: Partial<LoadResult> = {}): LoadResult => ({
  name,
  rps,
  p50_ms: 1,
  p99_ms: 2,
  errors: 0,
  non2xx: 0,
  ...failures,
});

const round = (ping: number, entry: number, byId: number, write: number): RouteRound => ({
  ping: load("ping", ping),
  entry: load("entry", entry),
  get_by_id: load("get_by_id", byId),
  write: load("write", write),
  write_index_settle_s: 0,
});

const hook = (name: string, events: number): WebhookLoad => ({
  ...load(name, events / 10),
  events_per_delivery: name === "payments" ? 1 : 100,
  events_per_s: events,
});

describe("bench part 1 figures", () => {
  test("each round's service load is divided by the bare load of the same round", () => {
    const figures = requestFigures([
      round(100_000, 80_000, 60_000, 4_000),
      round(50_000, 40_000, 36_000, 3_000),
    ]);
    const byKey = Object.fromEntries(figures.map((f) => [f.key, f.runs]));
    expect(byKey).toEqual({
      bare_route_rps: [100_000, 50_000],
      get_by_id_ratio: [0.75, 0.9],
      write_rps: [4_000, 3_000],
      write_ratio: [0.04, 0.06],
    });
  });

  test("the webhook figure is the load with the higher median, its runs in round order", () => {
    const rounds = [
      [hook("payments", 3_000), hook("marketing_crm", 5_000)],
      [hook("payments", 9_000), hook("marketing_crm", 4_000)],
      [hook("payments", 2_000), hook("marketing_crm", 6_000)],
    ];
    expect(webhookFigure(rounds)).toMatchObject({ key: "webhook_events_per_s", runs: [5_000, 4_000, 6_000] });
  });

  test("loads with errors or non-2xx answers are named, the others not", () => {
    const routes = [round(1, 1, 1, 1)];
    routes[0]!.write = load("write", 1, { non2xx: 3 });
    const webhooks = [[hook("payments", 1), { ...hook("marketing_crm", 1), errors: 2 }]];
    expect(failedRequestsOf({ routes, webhooks })).toEqual([
      "write: 0 errors, 3 non-2xx",
      "marketing_crm: 2 errors, 0 non-2xx",
    ]);
  });
});
