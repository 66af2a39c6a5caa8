/**
 * The one place requests are observed: counted and timed by method, route template and status,
 * traced (a server span per request, named by its route template, parent of every span the request
 * causes), and logged (one access-log line). Used first in src/compose/http.ts, before the errors plugin.
 *
 * No per-request lifecycle hook: the whole observation is Elysia's higher-order function around
 * its fetch (the function Bun.serve runs, and what `app.handle` runs, so tests measure the
 * production path). It sees the request arrive and its final Response (its status, whatever hook
 * or error produced it) and, with tracing on, runs the request inside its span's context
 * (AsyncLocalStorage: every span the request starts is its child). The route is named from the
 * route table (src/http/route-table.ts: the template of the route that serves the method at the
 * path; `unmatched` for a 404 or 405), the caller from what the auth plugin noted
 * (`authenticatedAs`: the principal of every valid token, a request it refused with a 403 included).
 * With tracing off no span object is made; per request there is one route lookup, the metric
 * observations and, unless the log is off, the log line. A streamed answer (SSE, NDJSON) is
 * measured when its Response is produced, as before.
 * The wrapper also counts the requests in flight (src/runtime/foreground-load.ts), which the
 * sentence model's background upgrade yields to.
 */
import { Elysia } from "elysia";
import { authenticatedAs, type Principal, requestInfo } from "../auth/caller.ts";
import { ULID_RE } from "../models/common.ts";
import type { Clock } from "../runtime/clock.ts";
import type { ForegroundLoad } from "../runtime/foreground-load.ts";
import type { AccessRecord } from "../telemetry/access-log.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { type Span, SpanKind, SpanStatusCode } from "../telemetry/tracing.ts";
import { requestIdOf } from "./request-id.ts";
import type { RouteMatch, RouteTable } from "./route-table.ts";

/** What the fetch wrapper saw of a request. */
interface Answered {
  status: number;
  seconds: number;
  span: Span | undefined;
}

/** Methods kept as label values; any other token a client sends is `other` (bounded cardinality). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The route label of a request no route matched (404, 405). */
export const UNMATCHED = "unmatched";

export function telemetryPlugin(
  telemetry: Telemetry,
  clock: Clock,
  routes: RouteTable,
  load?: ForegroundLoad,
) {
  const { tracing, metrics, accessLog } = telemetry;
  // prom-client hashes a label object on every call (its keys sorted and joined); the children of
  // one method, route and status are looked up once and kept (bounded: routes × methods × statuses).
  const series = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (found === undefined) {
      const labels = { method, route, status: String(status) };
      found = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };
  return (
    new Elysia({ name: "telemetry" })
      // Elysia's higher-order function around its fetch (also what @elysiajs/opentelemetry uses):
      // the one place that sees the final Response and can run the whole request in a context.
      .wrap(
        (fetch) => (request: Request) =>
          answerOf(request, fetch as unknown as (request: Request) => Response | Promise<Response>),
      )
  );

  /** Counts, times, ends the span of and logs one answered request. */
  function record(request: Request, seen: Answered): void {
    const method = METHODS.has(request.method) ? request.method : "other";
    const route = routes.routeOf(request.method, requestInfo(request).path);
    const template = route?.template ?? UNMATCHED;
    const series = seriesOf(method, template, seen.status);
    series.count.inc();
    series.duration.observe(seen.seconds);
    if (seen.span) endRequestSpan(seen.span, method, template, seen.status);
    if (!accessLog.enabled) return;
    // The resolved caller, or, for a request refused after its token was verified (a 403 by the
    // auth plugin's checks), the principal that token named: the auth plugin notes both.
    accessLog.write(recordOf(request, method, template, seen, authenticatedAs(request), route, clock));
  }

  function answerOf(
    request: Request,
    fetch: (request: Request) => Response | Promise<Response>,
  ): Response | Promise<Response> {
    const started = performance.now();
    const counted = load?.arrived(request.url) === true;
    let span: Span | undefined;
    let response: Response | Promise<Response>;
    if (tracing) {
      span = tracing.startSpan(request.method, {
        kind: SpanKind.SERVER,
        parent: tracing.extract(request.headers),
      });
      response = tracing.within(span, () => fetch(request));
    } else response = fetch(request);
    const done = (answer: Response) => {
      if (counted) load?.answered();
      record(request, { status: answer.status, seconds: (performance.now() - started) / 1000, span });
      return answer;
    };
    if (response instanceof Response) return done(response);
    // A rejected fetch is still an answer for the load's count (Elysia answers errors itself).
    return response.then(done, (error) => {
      if (counted) load?.answered();
      throw error;
    });
  }
}

function endRequestSpan(span: Span, method: string, route: string, status: number): void {
  span.updateName(`${method} ${route}`);
  span.setAttributes({
    "http.request.method": method,
    "http.route": route,
    "http.response.status_code": status,
  });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

function recordOf(
  request: Request,
  method: string,
  route: string,
  seen: Answered,
  principal: Principal | undefined,
  matched: RouteMatch | undefined,
  clock: Clock,
): AccessRecord {
  // A path's tenant id is logged only once it is well formed: never raw text from the URL.
  const pathTenant =
    matched?.tenantId !== undefined && ULID_RE.test(matched.tenantId) ? matched.tenantId : undefined;
  return {
    at: clock.now(),
    requestId: requestIdOf(request),
    method,
    route,
    status: seen.status,
    durationMs: seen.seconds * 1000,
    tenantId: principal && !principal.admin ? principal.tenantId : pathTenant,
    principal: principal && {
      sub: principal.sub,
      kind: principal.admin ? "operator" : "tenant",
      roles: principal.roles,
    },
  };
}
