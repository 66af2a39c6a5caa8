import type { TSchema } from "@sinclair/typebox";
import type { TypeCheck } from "@sinclair/typebox/compiler";
import { Elysia } from "elysia";
import type { Authenticator } from "../auth/authenticator.ts";
import { type Caller, noteAuthenticated, type Principal, requestInfo } from "../auth/caller.ts";
import type { Guard } from "../auth/guard.ts";
import { UnsupportedMediaType } from "../errors/domain-errors.ts";
import { parseAs } from "../models/media-type.ts";
import { problems } from "../models/problem.ts";
import { echoedMediaType, FOREIGN_BODY, RAW_BODY, readFormBody, readJsonBody, readsAsJson } from "./body.ts";
import { ADMIN_COOKIE, adminCookieOf, requireFormToken, sameOrigin } from "./dashboard-form.ts";
import { isNdjson } from "./ndjson.ts";
import { type RateLimiter, rateClassOf } from "./rate-limit.ts";
import { checkBody } from "./validate-body.ts";

/** The cookie the dashboard's token form sets: the operator's token, accepted on GET requests only. */
export { ADMIN_COOKIE };

/** `caller`: any valid token (tenant or operator); `admin`: the operator's token only. */
export type AuthLevel = "caller" | "admin";

/**
 * A level, or a level with the body limit of a route that takes more than the default (a batch),
 * or with `refusals`: how this plugin's refusals (400, 413, 429) are declared on a route that
 * answers them otherwise than as problem documents (the dashboard's pages).
 */
export type AuthOption =
  | AuthLevel
  | { level: AuthLevel; bodyLimit?: number; refusals?: Record<number, TSchema> };

/**
 * The one auth plugin: a route declares `{ auth: "caller" | "admin" }` (first among its options),
 * and the caller is resolved once per request, before any parameter, query or body is validated
 * (an anonymous caller gets 401, never a schema hint). Handlers receive `principal` and `req`.
 * A suspended tenant's token stops here (403 `tenant_suspended`); so does a tenant token on an
 * admin route (403, audited). The admin cookie counts on GET requests only, so a page cannot be
 * made to post with the operator's authority; the one exception is a route that declares
 * `{ adminForm }` instead of `auth`: a dashboard form (dashboard-form.ts: same origin and the page's
 * form token). The caller's rate limit is checked here too (429
 * `rate_limited`, declared on every route that uses the plugin), before the body is read.
 */
export function authPlugin(auth: Authenticator, guard: Guard, bodyLimit: number, limiter: RateLimiter) {
  // The caller admitted to the request's route, settled once per request (one rate-limit take, one
  // denial), whether the body's reader, the transform or the resolve asks first. A request whose
  // token is cached is admitted without an await; the promise is kept only when there is one.
  const admitted = new WeakMap<Request, Caller | Promise<Caller>>();
  const admittedCaller = (request: Request, level: AuthLevel, form = false): Caller | Promise<Caller> => {
    let known = admitted.get(request);
    if (known === undefined) {
      known = admit(request, level, form);
      admitted.set(request, known);
    }
    return known;
  };
  const admit = (request: Request, level: AuthLevel, form: boolean): Caller | Promise<Caller> => {
    const principal = auth.known(request);
    if (principal === undefined)
      return auth
        .authenticate(request, cookieToken(request, form))
        .then((found) => checked(found, request, level));
    try {
      return checked(principal, request, level);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const checked = (principal: Principal, request: Request, level: AuthLevel): Caller | Promise<Caller> => {
    // Noted before any refusal below: a 403 or 429 to a valid token is still logged as its principal's.
    noteAuthenticated(request, principal);
    const req = requestInfo(request);
    // Before the suspension check and every other refusal: a flood of refused requests must
    // not become a flood of audit-log writes.
    const refused = limiter.admit(principal.tenantId, rateClassOf(req.method, req.path));
    if (refused) return refused;
    guard.requireActiveTenant(principal, req);
    // On an admin route a tenant token is refused here (403, audited).
    if (level === "admin") guard.requireAdmin(principal, req);
    return { principal, req };
  };
  const readAfterAuth =
    (level: AuthLevel, limit: number) =>
    async ({ request }: { request: Request }) => {
      // Refused before the body is read: a tenant's probe of an admin route is a 403 on record,
      // never a 400 or 413 about bytes it had no right to send.
      await admittedCaller(request, level);
      // NDJSON (an import) is left unread for its route to stream; so is a body of any other non-JSON
      // type (a form, multipart): a JSON route refuses both (415), the import all but NDJSON.
      if (isNdjson(request)) return RAW_BODY;
      if (!readsAsJson(request)) return FOREIGN_BODY;
      return readJsonBody(request, limit);
    };
  return new Elysia({ name: "auth" }).macro({
    auth: (option: AuthOption) => ({
      // The caller is known before the body is read: an anonymous caller's bytes are never parsed.
      // The reader always answers (an empty body is null); "json" tells the OpenAPI document.
      parse: parseAs(
        "json",
        readAfterAuth(
          levelOf(option),
          typeof option === "string" ? bodyLimit : (option.bodyLimit ?? bodyLimit),
        ),
      ),
      async transform({ request }) {
        await admittedCaller(request, levelOf(option));
      },
      resolve: ({ request }) => admittedCaller(request, levelOf(option)),
      // Merged into the route's own responses, so the OpenAPI document lists them on each: the 429,
      // and the 400, 413 and 415 of the body this plugin reads for every route, one that takes none too.
      response: (typeof option === "object" && option.refusals) || problems(400, 413, 415, 429),
    }),
    // A dashboard form (an HTML form's fields, at most `limit` bytes) posted by the operator: the
    // cookie counts when the request is same-origin, and the form must then carry the page's form
    // token (checked once the fields are read and valid, before the handler). `refusals` declares
    // this plugin's 400, 413 and 429 as the route answers them (the dashboard's pages).
    adminForm: (option: { limit: number; refusals: Record<number, TSchema> }) => ({
      parse: parseAs("urlencoded", async ({ request }: { request: Request }) => {
        await admittedCaller(request, "admin", true);
        return readFormBody(request, option.limit);
      }),
      async transform({ request }) {
        await admittedCaller(request, "admin", true);
      },
      resolve: async ({ request, body }) => {
        const caller = await admittedCaller(request, "admin", true);
        requireFormToken(request, body);
        return caller;
      },
      response: option.refusals,
    }),
    // Macro hooks run in the order a route names them: after `auth`, so a refused caller never
    // learns the schema; before Elysia's own validation, which a hostile body could crash.
    checkBody: (check: TypeCheck<TSchema>) => ({
      transform({ body, request }) {
        if (body === RAW_BODY || body === FOREIGN_BODY)
          throw new UnsupportedMediaType(
            `this route reads application/json, not ${echoedMediaType(request)}: send the body as JSON with Content-Type: application/json`,
          );
        checkBody(check, body);
      },
    }),
  });
}

function levelOf(option: AuthOption): AuthLevel {
  return typeof option === "string" ? option : option.level;
}

/** The admin cookie, where it counts: a GET or HEAD, or a dashboard form posted from this origin. */
function cookieToken(request: Request, form: boolean): string | undefined {
  const reads = request.method === "GET" || request.method === "HEAD";
  if (!reads && !(form && request.method === "POST" && sameOrigin(request))) return undefined;
  return adminCookieOf(request);
}
