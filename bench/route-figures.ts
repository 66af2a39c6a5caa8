import { mkdirSync, writeFileSync } from "node:fs";
import { removeTempDir, type Started, startProcess, startService, stop } from "./processes.ts";
import { type Figure, figuresJson, table } from "./report.ts";
import { routeRounds } from "./scenarios/http-routes.ts";
import { WEBHOOK_SECRETS, type WebhookLoad, webhookLoads } from "./scenarios/webhooks.ts";
import { indexSettled } from "./search-fill.ts";
import { adminToken, BENCH_SECRET, createTenant } from "./service-api.ts";
import { machine, median, round, seconds } from "./stats.ts";

export type RouteRounds = Awaited<ReturnType<typeof routeRounds>>;

export interface RouteLoads {
  routes: RouteRounds;
  webhooks: WebhookLoad[][];
}

/**
 * Part 1 of `bun run bench`: the bare server and the service's routes back to back in each round,
 * then verified webhooks. Per-tenant webhook secrets are read from the environment at start: the
 * tenant is created, then the service started again on the same data directory with its secrets.
 */
export async function routeLoads(rounds: number, log: (line: string) => void): Promise<RouteLoads> {
  log("HTTP routes (bare baselines and the service, back to back in each round)");
  let bare: Started | undefined = await startProcess("bench/bare-server.ts", "/ping");
  const setup = await startService(BENCH_SECRET);
  const hooked = await createTenant(setup.url, await adminToken(), "webhooks");
  await stop(setup);
  const env = Object.fromEntries(
    Object.entries(WEBHOOK_SECRETS).map(([base, value]) => [`${base}_${hooked.tenant_id}`, value]),
  );
  const service = await startService(BENCH_SECRET, { dataDir: setup.dataDir, env });
  const admin = await adminToken();
  const routes = await routeRounds({
    bareUrl: bare.url,
    serviceUrl: service.url,
    reader: await createTenant(service.url, admin, "reader"),
    writer: await createTenant(service.url, admin, "writer"),
    rounds,
    log,
  });
  await stop(bare);
  bare = undefined;
  log("verified webhooks");
  const webhooks: WebhookLoad[][] = [];
  for (let r = 0; r < rounds; r++) {
    webhooks.push(await webhookLoads(service.url, hooked.tenant_id, () => indexSettled(service.url, hooked)));
    log(
      `  round ${r + 1}: ${webhooks
        .at(-1)!
        .map((w) => `${w.name} ${w.events_per_s} events/s`)
        .join(", ")}`,
    );
  }
  await stop(service);
  removeTempDir(setup.dataDir!);
  return { routes, webhooks };
}

/** The request keys of part 1, each with its runs (a round's service load ÷ the bare load beside it). */
export function requestFigures(routes: RouteRounds): Figure[] {
  const paired = (f: (r: RouteRounds[number]) => number) => routes.map(f);
  return [
    { key: "bare_route_rps", runs: paired((r) => r.ping.rps), note: "(baseline)" },
    {
      key: "get_by_id_ratio",
      runs: paired((r) => round(r.get_by_id.rps / r.entry.rps)),
      target: { op: ">=", value: 0.8 },
    },
    { key: "write_rps", runs: paired((r) => r.write.rps), note: "(÷ bare: write_ratio)" },
    {
      key: "write_ratio",
      runs: paired((r) => round(r.write.rps / r.ping.rps)),
      target: { op: ">=", value: 0.4 },
    },
  ];
}

/** webhook_events_per_s: the faster of the two webhook loads, by median, its runs. */
export function webhookFigure(webhooks: WebhookLoad[][]): Figure {
  const best = webhookBestOf(webhooks);
  return {
    key: "webhook_events_per_s",
    runs: webhooks.map((r) => r[best]!.events_per_s),
    target: { op: ">=", value: 10_000 },
  };
}

/** Which webhook load (payments: one event a delivery; marketing_crm: 100) ran faster, by median. */
export function webhookBestOf(webhooks: WebhookLoad[][]): number {
  return webhookMedian(webhooks, 0) >= webhookMedian(webhooks, 1) ? 0 : 1;
}

const webhookMedian = (webhooks: WebhookLoad[][], i: number) =>
  median(webhooks.map((r) => r[i]!.events_per_s));

/** Loads of part 1 that saw errors or non-2xx answers, one line each. */
export function failedRequestsOf({ routes, webhooks }: RouteLoads): string[] {
  return [...routes.flatMap((r) => [r.ping, r.entry, r.get_by_id, r.write]), ...webhooks.flat()]
    .filter((l) => l.errors + l.non2xx > 0)
    .map((l) => `${l.name}: ${l.errors} errors, ${l.non2xx} non-2xx`);
}

/**
 * `BENCH_PART=routes bun run bench`: part 1 alone (the routes' ratios to the bare server and the
 * webhook loads), for an A/B of the request and ingest paths in minutes; written to
 * bench/results/tmp-routes.json (BENCH_ROUTES_OUT).
 */
export async function routesOnly(log: (line: string) => void): Promise<void> {
  const started = performance.now();
  const machineInfo = machine();
  const loads = await routeLoads(3, log);
  const figures = [...requestFigures(loads.routes), webhookFigure(loads.webhooks)];
  const file = process.env.BENCH_ROUTES_OUT ?? "bench/results/tmp-routes.json";
  const out = {
    ...figuresJson(figures),
    at: new Date().toISOString(),
    wall_s: seconds(started),
    machine: machineInfo,
    details: {
      http_rounds: loads.routes,
      webhooks: loads.webhooks,
      failed_requests: failedRequestsOf(loads),
    },
  };
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${table(figures)}\n`);
  for (const failed of out.details.failed_requests) console.log(`warning: ${failed}`);
  console.log(`written to ${file}; wall time ${Math.round(seconds(started))} s`);
}
