/**
 * The dashboard's figures in cluster mode (docs/cluster.md, "Request forwarding"). The dashboard
 * has no tenant, so whichever node is asked renders it; but a tenant's vault is only on the node
 * serving its partition. So each tenant's figures are asked of the two admin routes that give them
 * (`GET /admin/metrics/stats/{id}`, `GET /admin/metrics/revenue-per-agent/{id}`), in process,
 * through the cluster's router: it answers on this node when it serves the tenant and forwards to
 * the owner otherwise (the request/reply forwarding every tenant route uses), re-asking a read that
 * raced a move. The requests carry the dashboard caller's own credential (its Authorization or
 * cookie header, both GETs), so the owner checks the operator as for any request; nothing is minted.
 */
import { Unavailable } from "../errors/domain-errors.ts";
import { isoOf } from "../models/common.ts";
import type { RevenueReport } from "../models/revenue.ts";
import type { TenantStatsReport } from "../models/tenant-stats.ts";
import type { FiguresReader, FiguresRequest, TenantFigures } from "../ports/runtime-ports.ts";
import type { Clock } from "../runtime/clock.ts";

/**
 * How long a tenant's figures may take before its row says unavailable: the router's own wait for
 * an owner (2 s) and a loopback round trip fit well within it; a silent owner (a forwarded request
 * waits 10 s for it) does not hold the page that long.
 */
export const FIGURES_WAIT_MS = 4000;

/** The caller's headers that prove who it is: the bearer token, or the dashboard's cookie. */
const CREDENTIAL_HEADERS = ["authorization", "cookie"];

export type Route = (request: Request) => Promise<Response>;

/** The figures port of a cluster node (src/ports/runtime-ports.ts): both routes asked through `route` (the router). */
export function figuresThroughRouter(route: Route, clock: Clock, waitMs = FIGURES_WAIT_MS): FiguresReader {
  return (asked) => within(clock, waitMs, figuresOf(route, asked));
}

async function figuresOf(route: Route, asked: FiguresRequest): Promise<TenantFigures> {
  const { tenantId, days, window, caller } = asked;
  const statsPath = `/admin/metrics/stats/${tenantId}?from_day=${days.fromDay}&to_day=${days.toDay}`;
  const revenuePath = `/admin/metrics/revenue-per-agent/${tenantId}?from=${isoOf(window.from)}&to=${isoOf(window.to)}`;
  const [report, revenue] = await Promise.all([
    answerOf<TenantStatsReport>(route, caller, statsPath),
    answerOf<RevenueReport>(route, caller, revenuePath),
  ]);
  const { entries_per_category, dead_letters, writes_per_day } = report;
  return { stats: { entries_per_category, dead_letters, writes_per_day }, revenue };
}

/** The route's 200 body; any other answer is the row's reason for being unavailable. */
async function answerOf<T>(route: Route, caller: Request, path: string): Promise<T> {
  const headers = new Headers();
  for (const name of CREDENTIAL_HEADERS) {
    const value = caller.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const response = await route(new Request(new URL(path, caller.url).href, { headers }));
  if (response.status === 200) return (await response.json()) as T;
  throw new Unavailable(await reasonOf(response));
}

/** The problem's detail (every error of these routes is problem+json), else the status. */
async function reasonOf(response: Response): Promise<string> {
  const problem = (await response.json().catch(() => undefined)) as { detail?: unknown } | undefined;
  return typeof problem?.detail === "string"
    ? problem.detail
    : `the tenant's node answered ${response.status}`;
}

/** `work`, or Unavailable once `waitMs` passed on `clock` (the work's late outcome is dropped). */
function within<T>(clock: Clock, waitMs: number, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      reject(new Unavailable(`the tenant's node did not answer within ${waitMs / 1000} s`));
    }, waitMs);
    work.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}
