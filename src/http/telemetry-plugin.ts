/**
 * The one place requests are observed: counted and timed by method, route template and status,
 * traced (a server span per request, named by its route template, parent of every span the request
 * causes), and logged (one access-log line). Used first in src/app.ts, before the errors plugin.
 *
 * Two hooks, because no single Elysia hook sees both what was answered and which route answered:
 * - a higher-order function around the app's fetch sees the request arrive and its final Response
 *   (its status, whatever hook or error produced it), and, with tracing on, runs the request inside
 *   its span's context (AsyncLocalStorage: every span the request starts is its child);
 * - the global `afterResponse` hook (run after the response, off the request's critical path)
 *   knows the matched route and the caller, and records everything.
 * With tracing off no span object is made; per request there is one small record (status, time),
 * the metric observations and, unless the log is off, the log line.
 * The fetch wrapper also counts the requests in flight (src/runtime/foreground-load.ts), which the
 * sentence model's background upgrade yields to.
 *
 * Elysia runs `afterResponse` for every answer a route or the error handler produced, a 404 and an
 * error thrown by an `onRequest` hook included, but not for a Response an `onRequest` hook returns:
 * such a hook throws its refusal instead (as the shutdown gate does), or its answers go unrecorded.
 */
import { Elysia } from "elysia";
import { authenticatedAs, type Principal } from "../auth/caller.ts";
import { ULID_RE } from "../models/common.ts";
import type { Clock } from "../runtime/clock.ts";
import type { ForegroundLoad } from "../runtime/foreground-load.ts";
import type { AccessRecord } from "../telemetry/access-log.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { type Span, SpanKind, SpanStatusCode } from "../telemetry/tracing.ts";
import { requestIdOf } from "./request-id.ts";

/** What the fetch wrapper saw of a request, for the `afterResponse` hook. */
interface Answered {
  status: number;
  seconds: number;
  span: Span | undefined;
}

/** Methods kept as label values; any other token a client sends is `other` (bounded cardinality). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The route label of a request no route matched (404, 405). */
export const UNMATCHED = "unmatched";

export function telemetryPlugin(telemetry: Telemetry, clock: Clock, load?: ForegroundLoad) {
  const answered = new WeakMap<Request, Answered>();
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
      // The context read field by field (no rest spread: that would copy it for every request).
      .onAfterResponse({ as: "global" }, (context) => {
        const { request, route, params } = context;
        const seen = answered.get(request);
        if (seen === undefined) return;
        answered.delete(request);
        const method = METHODS.has(request.method) ? request.method : "other";
        const template = route ? templateOf(route) : UNMATCHED;
        const series = seriesOf(method, template, seen.status);
        series.count.inc();
        series.duration.observe(seen.seconds);
        if (seen.span) endRequestSpan(seen.span, method, template, seen.status);
        if (!accessLog.enabled) return;
        // The resolved caller, or, for a request refused after its token was verified (a 403 by the
        // auth plugin's checks), the principal that token named.
        const principal = (context as { principal?: Principal }).principal ?? authenticatedAs(request);
        accessLog.write(recordOf(request, method, template, seen, principal, params, clock));
      })
  );

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
      answered.set(request, { status: answer.status, seconds: (performance.now() - started) / 1000, span });
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

const templates = new Map<string, string>();

/** Elysia's route path (`/memory/:category/:sha8`) as the OpenAPI document writes it (`{category}`). */
export function templateOf(route: string): string {
  let template = templates.get(route);
  if (template === undefined) {
    template = route.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    templates.set(route, template);
  }
  return template;
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
  params: Record<string, string | undefined> | undefined,
  clock: Clock,
): AccessRecord {
  // A path's tenant id is logged only once it is well formed: never raw text from the URL.
  const pathTenant =
    params?.tenant_id !== undefined && ULID_RE.test(params.tenant_id) ? params.tenant_id : undefined;
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
